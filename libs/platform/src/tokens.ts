/** Injection tokens of the process-wide resources made at start. */
export const PRISMA = Symbol('PRISMA');
export const QUEUE_CONNECTION = Symbol('QUEUE_CONNECTION');
export const METRICS = Symbol('METRICS');
export const RUNTIME = Symbol('RUNTIME');
