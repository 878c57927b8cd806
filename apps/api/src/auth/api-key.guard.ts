import { ForbiddenError } from '@app/domain';
import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Response } from 'express';
import { ADMIN_ONLY, AuthenticatedRequest, IS_PUBLIC } from './auth.decorators';
import { AuthService } from './auth.service';

/** The path as the router may match it: decoded, without repeated slashes, lower case (routing ignores case). */
export function normalizePath(raw: string): string {
  let path = raw.split('?')[0];
  try {
    path = decodeURIComponent(path);
  } catch {
    // Malformed escapes: judge the raw text.
  }
  return path.replace(/\/{2,}/g, '/').toLowerCase();
}

/** Paths that carry a key: the API, the MCP endpoint and the Registry API (/v0.1), less the health probes. */
export function requiresKey(rawPath: string): boolean {
  const path = normalizePath(rawPath);
  if (path.startsWith('/api/v1/health/')) return false;
  return path.startsWith('/api/v1/') || path === '/api/v1' || path === '/mcp' || path.startsWith('/mcp/') || path === '/v0.1' || path.startsWith('/v0.1/');
}

/**
 * Installed for every route: `/api/v1/*` and `/mcp` need `Authorization: Bearer
 * <key>` (401 otherwise); routes marked @AdminOnly() answer a tenant with 403.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly auth: AuthService,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const req = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const targets = [context.getHandler(), context.getClass()];
    const adminOnly = this.reflector.getAllAndOverride<boolean>(ADMIN_ONLY, targets);
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) return true;
    if (!adminOnly && !requiresKey(req.originalUrl ?? req.path)) return true;
    try {
      // Normally set by ApiKeyMiddleware; authenticated here too where a route is reached without it.
      req.principal ??= await this.auth.authenticate(req.headers.authorization);
    } catch (err) {
      context.switchToHttp().getResponse<Response>().setHeader('WWW-Authenticate', 'Bearer realm="mcp-registry"');
      throw err;
    }
    if (adminOnly && req.principal.type !== 'admin') {
      throw new ForbiddenError('this action is reserved to the platform administrator');
    }
    return true;
  }
}
