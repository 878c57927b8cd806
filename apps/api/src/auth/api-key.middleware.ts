import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Response } from 'express';
import { requiresKey } from './api-key.guard';
import { AuthenticatedRequest } from './auth.decorators';
import { AuthService } from './auth.service';

/**
 * Authenticates every request under /api/v1 and /mcp before routing, so even a
 * path that matches no route answers 401 to a caller without a valid key (and
 * reveals nothing about which routes exist). The guard then applies per-route rules.
 */
@Injectable()
export class ApiKeyMiddleware implements NestMiddleware {
  constructor(private readonly auth: AuthService) {}

  async use(req: AuthenticatedRequest, res: Response, next: NextFunction): Promise<void> {
    // Mounted with use(), so req.path is relative to the mount point: decide on the whole path.
    if (req.method === 'OPTIONS' || !requiresKey(req.originalUrl ?? req.url)) return next();
    try {
      req.principal = await this.auth.authenticate(req.headers.authorization);
    } catch (err) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="mcp-registry"');
      return next(err);
    }
    next();
  }
}
