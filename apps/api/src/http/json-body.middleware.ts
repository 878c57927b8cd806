import { InvalidInputError } from '@app/domain';
import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { inspectBody, inspectPath, inspectQuery, JSON_RPC_OPAQUE, REST_OPAQUE } from '../http/input-rules';

export { inspectBody, MAX_BODY_DEPTH } from '../http/input-rules';

/** The MCP endpoints take JSON-RPC messages, alone or as a batch (an array); the API's bodies are objects. */
function isJsonRpcPath(url: string): boolean {
  return /^\/mcp(?:[/?]|$)/.test(url);
}

/**
 * Every request, on every path: the path and the query string hold only text PostgreSQL can store; a body
 * (a JSON object under /api, a JSON-RPC message or batch at /mcp) is not absurdly deep, has no prototype-reaching
 * keys, and its strings obey the same rule. A 400 naming the field before validation or any service sees it.
 */
@Injectable()
export class JsonBodyMiddleware implements NestMiddleware {
  use(req: Request, _res: Response, next: NextFunction): void {
    // Mounted with use(), so req.path is relative to the mount point: decide on the whole URL.
    const url = req.originalUrl ?? req.url;
    try {
      inspectPath(url);
      inspectQuery(req.query);
      const body: unknown = req.body;
      if (body !== undefined && ['POST', 'PUT', 'PATCH', 'DELETE'].includes(req.method)) {
        const rpc = isJsonRpcPath(url);
        // A catalog import may be a list of server.json documents; every other API body is an object.
        const listAllowed = Array.isArray(body) && /^\/api\/v1\/catalog\/import(?:[?#]|$)/.test(url);
        if (/^\/api\//.test(url) && (body === null || typeof body !== 'object' || (Array.isArray(body) && !listAllowed))) {
          throw new InvalidInputError('body: must be a JSON object', [{ field: 'body', message: 'must be a JSON object' }]);
        }
        if (rpc && (body === null || typeof body !== 'object')) {
          throw new InvalidInputError('body: must be a JSON-RPC message (an object) or a batch (an array)', [
            { field: 'body', message: 'must be a JSON-RPC message (an object) or a batch (an array)' },
          ]);
        }
        inspectBody(body, rpc ? JSON_RPC_OPAQUE : REST_OPAQUE);
      }
    } catch (err) {
      return next(err);
    }
    next();
  }
}
