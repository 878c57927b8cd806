/** Injection tokens of the process-wide resources made at start. */
export const PRISMA = Symbol('PRISMA');
export const METRICS = Symbol('METRICS');
export const RUNTIME = Symbol('RUNTIME');
export { QUEUE_CONNECTION } from '@app/queue';
