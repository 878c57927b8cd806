/** Ownership category of a server definition (reference contract `kind`). */
export enum ServerKind {
  INTERNAL = 'INTERNAL',
  BUILT_IN = 'BUILT_IN',
  CUSTOM = 'CUSTOM',
  EXTERNAL = 'EXTERNAL',
  INTEGRATION = 'INTEGRATION',
}

/** Connection / discovery condition of a server (reference contract `status`). */
export enum ServerStatus {
  CONNECTED = 'CONNECTED',
  DISCONNECTED = 'DISCONNECTED',
  ERROR = 'ERROR',
  DISCOVERING = 'DISCOVERING',
}

export enum TransportType {
  STREAMABLE_HTTP = 'streamable-http',
  SSE = 'sse',
  STDIO = 'stdio',
  IN_PROCESS = 'in-process',
}

/** Canonical wire names and numbers of the reference contract. */
export const KIND_WIRE: Record<ServerKind, { name: string; number: number }> = {
  [ServerKind.INTERNAL]: { name: 'MCP_SERVER_KIND_INTERNAL', number: 1 },
  [ServerKind.BUILT_IN]: { name: 'MCP_SERVER_KIND_BUILT_IN', number: 2 },
  [ServerKind.CUSTOM]: { name: 'MCP_SERVER_KIND_CUSTOM', number: 3 },
  [ServerKind.EXTERNAL]: { name: 'MCP_SERVER_KIND_EXTERNAL', number: 4 },
  [ServerKind.INTEGRATION]: { name: 'MCP_SERVER_KIND_INTEGRATION', number: 5 },
};

export const STATUS_WIRE: Record<ServerStatus, { name: string; number: number }> = {
  [ServerStatus.CONNECTED]: { name: 'MCP_SERVER_CONNECTION_STATUS_CONNECTED', number: 1 },
  [ServerStatus.DISCONNECTED]: { name: 'MCP_SERVER_CONNECTION_STATUS_DISCONNECTED', number: 2 },
  [ServerStatus.ERROR]: { name: 'MCP_SERVER_CONNECTION_STATUS_ERROR', number: 3 },
  [ServerStatus.DISCOVERING]: { name: 'MCP_SERVER_CONNECTION_STATUS_DISCOVERING', number: 4 },
};

export const KIND_WIRE_NAMES = Object.values(KIND_WIRE).map((w) => w.name);
export const STATUS_WIRE_NAMES = Object.values(STATUS_WIRE).map((w) => w.name);

function parseWire<E extends string>(
  table: Record<E, { name: string; number: number }>,
  value: unknown,
): E | undefined {
  for (const [key, wire] of Object.entries(table) as [E, { name: string; number: number }][]) {
    if (value === wire.name || value === wire.number || value === key || value === String(wire.number)) {
      return key;
    }
  }
  return undefined;
}

/** Reads a kind written as its canonical name, its short name or its number. */
export function parseKind(value: unknown): ServerKind | undefined {
  return parseWire(KIND_WIRE, value);
}

/** Reads a status written as its canonical name, its short name or its number. */
export function parseStatus(value: unknown): ServerStatus | undefined {
  return parseWire(STATUS_WIRE, value);
}

export function kindToWire(kind: ServerKind): string {
  return KIND_WIRE[kind].name;
}

export function statusToWire(status: ServerStatus): string {
  return STATUS_WIRE[status].name;
}
