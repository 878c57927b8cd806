import { ConflictError, DomainError, NotFoundError } from '@app/domain';
import { Prisma } from './generated/prisma/client';

/** The Prisma error code of a known request error, if it is one. */
export function prismaCode(err: unknown): string | undefined {
  return err instanceof Prisma.PrismaClientKnownRequestError ? err.code : undefined;
}

/**
 * Turns the Prisma errors a caller can cause into domain errors (P2002: a unique
 * value already taken; P2025: the row is gone) and rethrows anything else.
 */
export function translatePrismaError(err: unknown, messages: { conflict?: string; notFound?: string } = {}): never {
  if (err instanceof DomainError) throw err;
  const code = prismaCode(err);
  if (code === 'P2002') throw new ConflictError(messages.conflict ?? 'a record with this unique value already exists');
  if (code === 'P2025') throw new NotFoundError(messages.notFound ?? 'not found');
  throw err;
}
