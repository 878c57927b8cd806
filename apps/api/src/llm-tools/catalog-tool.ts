import { ToolDefinition } from '@app/domain';
import type { ToolDocument } from '@app/search';

/**
 * One tool in the catalog: what the search index reads and scopes by, with the whole definition kept as the
 * JSON text PostgreSQL returned. Holding text rather than parsed schemas keeps 100,000 tools in tens of
 * megabytes; a definition is parsed when it is indexed and when it is handed out in a result.
 */
export class CatalogTool implements ToolDocument {
  /** Set only while the index analyses the tool (see analyse()), so that the definition is parsed once. */
  private parsed?: ToolDefinition;

  constructor(
    readonly serverId: string,
    readonly serverName: string,
    readonly serverKind: string,
    readonly tenantId: string | null,
    readonly toolName: string,
    /** The definition as JSON text. */
    readonly json: string,
  ) {}

  /** A fresh copy of the definition: callers may change it freely. */
  definition(): ToolDefinition {
    return JSON.parse(this.json) as ToolDefinition;
  }

  private current(): ToolDefinition {
    return this.parsed ?? this.definition();
  }

  get title(): string | undefined {
    return this.current().title;
  }

  get description(): string | undefined {
    return this.current().description;
  }

  get inputSchema(): unknown {
    return this.current().inputSchema;
  }

  get annotations(): ({ readonly title?: string } & Readonly<Record<string, unknown>>) | undefined {
    return this.current().annotations as ({ title?: string } & Record<string, unknown>) | undefined;
  }

  /** Runs `index` with each tool's definition parsed once, and lets the parsed copies go afterwards. */
  static analyse<T>(tools: readonly CatalogTool[], index: () => T): T {
    for (const t of tools) t.parsed = JSON.parse(t.json) as ToolDefinition;
    try {
      return index();
    } finally {
      for (const t of tools) t.parsed = undefined;
    }
  }
}
