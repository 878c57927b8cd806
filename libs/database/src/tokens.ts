/** Injection token of the process's one PrismaClient. Only this lib's repositories inject it. */
export const PRISMA = Symbol('PRISMA');
