import { REDACTED, redactor } from '../connection/redaction';
import { StderrTail } from './stderr-tail';

describe('StderrTail', () => {
  const secret = 'sk-live-4f1c9e2b7a6d5c3b';

  it('keeps the last bytes and says how many went', () => {
    const tail = new StderrTail(8);
    tail.push(Buffer.from('0123456789abcdef'));
    expect(tail.text()).toBe('[8 earlier bytes dropped]\n89abcdef');
  });

  it('removes the end of a secret the cut left at the start of the kept tail', () => {
    const tail = new StderrTail(30);
    tail.push(Buffer.from(`token=${secret}\n`));
    tail.push(Buffer.from('connection refused, giving up\n'.slice(0, 18)));
    const text = tail.text(redactor([secret]));
    expect(text).toMatch(/^\[\d+ earlier bytes dropped\]\n\[redacted\]/);
    expect(text).not.toContain(secret.slice(-8));
    expect(text).toContain('connection refus');
  });

  it('leaves a whole tail to the redactor as it is', () => {
    const tail = new StderrTail(1024);
    tail.push(Buffer.from(`using ${secret} for the upstream\n`));
    expect(tail.text(redactor([secret]))).toBe(`using ${REDACTED} for the upstream\n`);
  });
});
