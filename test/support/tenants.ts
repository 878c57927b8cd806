import { TestApp } from './app';

export interface TenantKey {
  tenantId: string;
  keyId: string;
  key: string;
}

let counter = 0;

/** Makes a tenant and one API key for it, through the API, as the admin. */
export async function makeTenant(t: TestApp, name = `tenant-${process.pid}-${++counter}`): Promise<TenantKey> {
  const tenant = await t.request('POST', '/api/v1/tenants', { body: { name } });
  if (tenant.status !== 201) throw new Error(`tenant: ${tenant.status} ${tenant.text}`);
  const key = await t.request('POST', `/api/v1/tenants/${tenant.body.id}/api-keys`, { body: { name: 'test' } });
  if (key.status !== 201) throw new Error(`key: ${key.status} ${key.text}`);
  return { tenantId: tenant.body.id, keyId: key.body.id, key: key.body.key };
}

/** A problem document's field names. */
export function fields(body: { errors?: { field: string }[] }): string[] {
  return (body.errors ?? []).map((e) => e.field);
}

export function expectProblem(res: { status: number; headers: Headers; body: unknown }, status: number): void {
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${JSON.stringify(res.body)}`);
  const type = res.headers.get('content-type') ?? '';
  if (!type.includes('application/problem+json')) throw new Error(`expected problem+json, got ${type}`);
  const b = res.body as { status?: number; title?: string; detail?: string; type?: string };
  if (b.status !== status || typeof b.title !== 'string' || typeof b.detail !== 'string' || typeof b.type !== 'string') {
    throw new Error(`not a problem document: ${JSON.stringify(res.body)}`);
  }
}

/**
 * Hands out secret values and records every answer of `t`, so a test can prove
 * that no secret it used ever came back in a response or reached the log.
 */
export function watchSecrets(t: TestApp): { secret(label: string): string; leaks(): string[] } {
  const secrets: string[] = [];
  const answers: string[] = [];
  const original = t.request.bind(t);
  t.request = (async (method: string, path: string, opts?: Parameters<TestApp['request']>[2]) => {
    const res = await original(method, path, opts);
    answers.push(res.text, JSON.stringify([...res.headers]));
    return res;
  }) as TestApp['request'];
  return {
    secret(label: string) {
      const value = `s3cr3t-${label}-${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
      secrets.push(value);
      return value;
    },
    leaks() {
      const haystacks = [...answers, t.logs()];
      return secrets.filter((s) => haystacks.some((h) => h.includes(s)));
    },
  };
}
