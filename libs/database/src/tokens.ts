/** Injection token of the process's one PrismaClient. Only this lib's repositories inject it. */
export const PRISMA = Symbol('PRISMA');
/** Injection token of plain SQL on the same pool (see Sql). Only this lib's repositories inject it. */
export const SQL = Symbol('SQL');
