import { Token, tokenize } from './tokenizer';
import type { ToolDocument } from './tool-document';

/** The parts of a tool that are searched, each with its own weight (see ranking.ts). */
export enum Field {
  NAME = 0,
  TITLE = 1,
  /** The first sentence of the description: by convention the tool's purpose, led by its verb. */
  PURPOSE = 2,
  /** The rest of the description: when (not) to use it, caveats, examples. */
  DESCRIPTION = 3,
  PARAMS = 4,
  SERVER = 5,
  /**
   * What the server says of itself at initialize (its instructions), the opening of it: context shared by
   * all of its tools ("Microsoft Graph", "web-grounded search"), weighed low since it describes no one tool.
   */
  SERVER_ABOUT = 6,
}

export const FIELD_COUNT = 7;

/**
 * Long descriptions (some servers put whole manuals in them) are cut, so one verbose tool cannot take
 * memory out of proportion; the opening of a description is where its purpose is stated.
 */
const MAX_DESCRIPTION_TOKENS = 400;
const MAX_PURPOSE_TOKENS = 40;
const MAX_PARAM_TOKENS = 300;
/** The opening of a server's instructions; the rest is usually how to call its tools, not what they are for. */
const MAX_SERVER_ABOUT_TOKENS = 24;
const MAX_SCHEMA_DEPTH = 6;
const MAX_SCHEMA_NODES = 200;

/** The words of each field of a tool, as search terms. */
export function fieldTokens(doc: ToolDocument): Token[][] {
  const out: Token[][] = new Array(FIELD_COUNT);
  out[Field.NAME] = tokenize(doc.toolName);
  out[Field.TITLE] = tokenize(doc.title ?? stringOr(doc.annotations?.title) ?? '');
  const [purpose, rest] = splitPurpose(doc.description ?? '');
  out[Field.PURPOSE] = tokenize(purpose, MAX_PURPOSE_TOKENS);
  out[Field.DESCRIPTION] = tokenize(rest, MAX_DESCRIPTION_TOKENS);
  out[Field.PARAMS] = tokenize(schemaText(doc.inputSchema), MAX_PARAM_TOKENS);
  out[Field.SERVER] = tokenize(doc.serverName);
  out[Field.SERVER_ABOUT] = serverAboutTokens(doc.serverInstructions);
  return out;
}

// Every tool of a server carries the same instructions: they are read once per server, not once per tool.
let lastInstructions: string | undefined;
let lastInstructionTokens: Token[] = [];

function serverAboutTokens(instructions: string | undefined): Token[] {
  if (!instructions) return [];
  if (instructions !== lastInstructions) {
    lastInstructions = instructions;
    lastInstructionTokens = tokenize(firstSentence(instructions.slice(0, MAX_SERVER_ABOUT_TOKENS * 20))[0], MAX_SERVER_ABOUT_TOKENS);
  }
  return lastInstructionTokens;
}

/**
 * Splits a description after its first sentence (or first line, whichever ends sooner). Some servers lay
 * their descriptions out in headed sections ("🎯 Purpose:", "🛡️ Guardrails:", "[beta]"): the sentence under
 * a "Purpose" heading is the purpose wherever it is, and headings, tags and list markers before the first
 * sentence are not it.
 */
export function splitPurpose(description: string): [purpose: string, rest: string] {
  const headed = PURPOSE_HEADING.exec(description);
  if (headed) {
    const [purpose, after] = firstSentence(description.slice(headed.index + headed[0].length));
    return [purpose, `${description.slice(0, headed.index)}\n${after}`];
  }
  return firstSentence(description);
}

const PURPOSE_HEADING = /(?:^|\n)[^\p{L}\p{N}\n]*purpose\s*:?[ \t]*(?:\n|$)/iu;
/** A line that only heads what follows ("Usage:", "## Notes"), a tag ("[beta]"), a list marker ("1."). */
const LEADER = /^(?:[^\p{L}\p{N}\n]*[\p{L}\p{N}][^\n.!?]{0,40}:[ \t]*\n|\[[^\]\n]{1,20}\][ \t]*|(?:\d{1,2}[.)]|[-*•])[ \t]+)/u;

function firstSentence(description: string): [purpose: string, rest: string] {
  let text = description.trimStart();
  let skipped = '';
  for (let i = 0; i < 4; i++) {
    const leader = LEADER.exec(text);
    if (!leader) break;
    skipped += leader[0];
    text = text.slice(leader[0].length).trimStart();
  }
  const end = text.search(/[.!?](?:\s|$)|\n/);
  if (end < 0) return [text, skipped];
  return [text.slice(0, end + 1), `${skipped}${text.slice(end + 1)}`];
}

function stringOr(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The searchable text of an input schema: property names, their descriptions and enum values, nested
 * objects, array items and anyOf/oneOf/allOf branches included. Titles are left out: generators derive them
 * from the property names, which would count every name twice.
 */
export function schemaText(schema: unknown): string {
  const parts: string[] = [];
  let nodes = 0;
  const visit = (node: unknown, depth: number): void => {
    if (!isRecord(node) || depth > MAX_SCHEMA_DEPTH || nodes >= MAX_SCHEMA_NODES) return;
    nodes++;
    if (typeof node.description === 'string') parts.push(node.description);
    if (Array.isArray(node.enum)) {
      for (const v of node.enum) if (typeof v === 'string') parts.push(v);
    }
    if (typeof node.const === 'string') parts.push(node.const);
    if (isRecord(node.properties)) {
      for (const [name, child] of Object.entries(node.properties)) {
        if (nodes >= MAX_SCHEMA_NODES) break;
        parts.push(name);
        visit(child, depth + 1);
      }
    }
    const items = node.items;
    if (Array.isArray(items)) for (const item of items) visit(item, depth + 1);
    else visit(items, depth + 1);
    for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
      const branches = node[key];
      if (Array.isArray(branches)) for (const b of branches) visit(b, depth + 1);
    }
    visit(node.additionalProperties, depth + 1);
  };
  visit(schema, 0);
  return parts.join(' \n ');
}
