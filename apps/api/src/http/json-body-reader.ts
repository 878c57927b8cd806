import type { NextFunction, Request, Response } from 'express';
import { AsyncResource } from 'node:async_hooks';

/** The JSON whitespace before a body's first character (RFC 8259), as body-parser skips it in strict mode. */
const FIRST_NON_WHITESPACE = /^[\x20\x09\x0a\x0d]*([^\x20\x09\x0a\x0d]|$)/;
const DECIMAL = /^[0-9]{1,16}$/;
/** `application/json`, alone or with `charset=utf-8` (any case, quoted or not). */
const PLAIN_JSON = /^application\/json[ \t]*(?:;[ \t]*charset[ \t]*=[ \t]*(?:utf-8|"utf-8")[ \t]*)?$/i;

/** An error shaped as body-parser's are (status, type), so that it is answered the same way. */
function refusal(status: number, type: string, message: string): Error {
  return Object.assign(new Error(message), { status, statusCode: status, expose: true, type });
}

function parse(text: string): unknown {
  // A UTF-8 byte order mark is dropped, as body-parser's decoder drops it.
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const first = text[0] === '{' || text[0] === '[' ? text[0] : FIRST_NON_WHITESPACE.exec(text)![1];
  if (first !== '{' && first !== '[') throw refusal(400, 'entity.parse.failed', 'the body is not a JSON object or array');
  try {
    return JSON.parse(text);
  } catch {
    throw refusal(400, 'entity.parse.failed', 'the body is not valid JSON');
  }
}

/**
 * Reads the usual JSON request body itself: `Content-Type: application/json` (UTF-8), not compressed, its
 * `Content-Length` declared and within `limitBytes`. That is nearly every request, and body-parser spends
 * more on the media type, charset and stream plumbing of a body of a few dozen bytes than the rest of the
 * request's handling outside the framework. Anything else (another JSON media type, a charset, a
 * compressed or chunked body, one over the limit) is left untouched for body-parser, mounted after this,
 * which decodes or refuses it. Either way the body and the refusals are body-parser's: strict JSON (an
 * object or an array), a byte order mark dropped, 400 `entity.parse.failed` for what does not parse, 400
 * for a body shorter or longer than declared or one the client abandoned.
 */
export function jsonBodyReader(limitBytes: number) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    const headers = req.headers;
    const type = headers['content-type'];
    const declared = headers['content-length'];
    if (
      type === undefined ||
      declared === undefined ||
      headers['transfer-encoding'] !== undefined ||
      (headers['content-encoding'] !== undefined && headers['content-encoding'].toLowerCase() !== 'identity') ||
      req.complete ||
      !PLAIN_JSON.test(type) ||
      !DECIMAL.test(declared)
    ) {
      return next();
    }
    const length = Number(declared);
    if (length === 0 || length > limitBytes) return next();

    const chunks: Buffer[] = [];
    let received = 0;
    let settled = false;
    // The rest of the request runs in the async context it was read in (the request's log context among it).
    // A resource and runInAsyncScope: AsyncResource.bind costs several times as much per call.
    const context = new AsyncResource('JsonBodyReader');
    const settle = (err: Error | undefined, body?: unknown): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('aborted', onAborted);
      if (err) {
        // What is left of the body is read and dropped, so that the refusal can be sent on this connection.
        req.resume();
        return next(err);
      }
      req.body = body;
      next();
    };
    const finish = (err: Error | undefined, body?: unknown): void => {
      if (settled) return;
      settled = true;
      context.runInAsyncScope(settle, null, err, body);
    };
    const onData = (chunk: Buffer): void => {
      received += chunk.length;
      if (received > length) return finish(refusal(400, 'request.size.invalid', 'the request body is longer than its Content-Length'));
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      if (received !== length) return finish(refusal(400, 'request.size.invalid', 'the request body is shorter than its Content-Length'));
      let value: unknown;
      try {
        value = parse((chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, received)).toString('utf8'));
      } catch (err) {
        return finish(err as Error);
      }
      finish(undefined, value);
    };
    const onError = (err: Error): void => finish(refusal(400, 'request.aborted', `the request body could not be read: ${err.message}`));
    const onAborted = (): void => finish(refusal(400, 'request.aborted', 'the client abandoned the request'));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('aborted', onAborted);
  };
}
