import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { PROBLEM_CONTENT_TYPE, problemTitle, problemType } from './problem';

const ANSWERS: Record<string, [number, string, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large', 'the request line and headers are larger than the server accepts (16 KiB)'],
  HPE_URI_TOO_LONG: [414, 'URI Too Long', 'the request URL is longer than the server accepts'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', 'the request was not received in time'],
};

/**
 * Node's HTTP parser refuses some requests before the application sees them (headers or a URL too large,
 * a malformed request line) and answers them with a bare status line. They are answered here with a problem
 * document like every other refusal, and the connection is closed.
 */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const [status, reason, detail] = ANSWERS[err.code ?? ''] ?? [400, 'Bad Request', 'the request is not valid HTTP'];
    const body = JSON.stringify({ type: problemType(status), title: problemTitle(status), status, detail });
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: ${PROBLEM_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
