/** Injection tokens of the process-wide resources made at start. */
export const METRICS = Symbol('METRICS');
export const RUNTIME = Symbol('RUNTIME');
export { QUEUE_CONNECTION } from '@app/queue';
export { PRISMA, SQL } from '@app/database';
