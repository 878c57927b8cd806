import type { Principal } from '@app/domain';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Injectable } from '@nestjs/common';

/** A server that runs inside the registry's own process (an INTERNAL server). */
export interface InProcessServerDefinition {
  title: string;
  description: string;
  /**
   * Builds a fresh server for one connection; it is closed with the connection. `context` says whom the
   * connection serves: absent when discovery lists the server, the caller's principal when a tool call is
   * routed to it, so that a server acting on the registry answers within the caller's scope.
   */
  create(context?: InProcessContext): McpServer | Server;
}

/** Whom a connection to an in-process server serves. */
export interface InProcessContext {
  principal?: Principal;
}

/**
 * The in-process servers this process can reach, by name. An INTERNAL server
 * row names its definition here (the row's `name`); any module may add
 * definitions at start (for example the registry's own MCP server).
 */
@Injectable()
export class InProcessServers {
  private readonly definitions = new Map<string, InProcessServerDefinition>();

  register(name: string, definition: InProcessServerDefinition): void {
    if (this.definitions.has(name)) throw new Error(`an in-process server named "${name}" is already registered`);
    this.definitions.set(name, definition);
  }

  get(name: string): InProcessServerDefinition | undefined {
    return this.definitions.get(name);
  }

  has(name: string): boolean {
    return this.definitions.has(name);
  }

  /** Every definition, in registration order. */
  list(): { name: string; definition: InProcessServerDefinition }[] {
    return [...this.definitions].map(([name, definition]) => ({ name, definition }));
  }
}
