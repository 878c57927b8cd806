import { ChangeFeedModule } from '@app/database';
import { Global, Injectable, Module, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Response } from 'express';
import type { AuthenticatedRequest } from '../auth/auth.decorators';
import { AnswerCache } from './answer-cache';

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * An authenticated request that may change the registry (any REST write) drops every kept answer before it
 * runs, and again when it has answered, and nothing is kept while it runs: a client that reads right after its
 * own write through this process reads the write. It runs after the key check (AuthModule), so a request
 * without a valid key changes nothing here either. The LLM-facing RPCs and /mcp only read the registry.
 */
@Injectable()
export class WriteFenceMiddleware implements NestMiddleware {
  constructor(private readonly cache: AnswerCache) {}

  use(req: AuthenticatedRequest, res: Response, next: NextFunction): void {
    const url = req.originalUrl;
    if (req.principal && !READS.has(req.method) && url.startsWith('/api/v1/') && !url.startsWith('/api/v1/llm/')) {
      const end = this.cache.beginWrite();
      res.on('finish', end);
      res.on('close', end);
    }
    next();
  }
}

@Global()
@Module({
  imports: [ChangeFeedModule],
  providers: [AnswerCache, WriteFenceMiddleware],
  exports: [AnswerCache, WriteFenceMiddleware],
})
export class AnswerCacheModule {}
