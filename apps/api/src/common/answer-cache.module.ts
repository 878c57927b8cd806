import { Global, Injectable, MiddlewareConsumer, Module, NestMiddleware, NestModule } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { AnswerCache } from './answer-cache';

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * A request that may change the registry (any REST write) drops every kept answer before it runs, and again
 * when it has answered, and nothing is kept while it runs: a client that reads right after its own write
 * through this process reads the write. The LLM-facing RPCs and /mcp only read the registry.
 */
@Injectable()
export class WriteFenceMiddleware implements NestMiddleware {
  constructor(private readonly cache: AnswerCache) {}

  use(req: Request, res: Response, next: NextFunction): void {
    if (!READS.has(req.method) && !req.originalUrl.startsWith('/api/v1/llm/')) {
      const end = this.cache.beginWrite();
      res.on('finish', end);
      res.on('close', end);
    }
    next();
  }
}

@Global()
@Module({
  providers: [AnswerCache, WriteFenceMiddleware],
  exports: [AnswerCache],
})
export class AnswerCacheModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(WriteFenceMiddleware).forRoutes('/api/v1/{*path}');
  }
}
