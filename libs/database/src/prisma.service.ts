import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/prisma/client';

/** Creates the one Prisma client of a process, on the pg driver adapter. */
export function createPrismaClient(connectionString: string, poolSize = 10): PrismaClient {
  const adapter = new PrismaPg({ connectionString, max: poolSize });
  return new PrismaClient({ adapter });
}

export { PrismaClient };
