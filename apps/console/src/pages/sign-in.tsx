import { type FormEvent, useState } from 'react';
import { ApiError, probeKey } from '../api';
import type { Role } from '../app';

export function SignIn({ onSignedIn, notice }: { onSignedIn: (key: string, role: Role) => void; notice: string | null }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    const value = key.trim();
    if (!value) {
      setError('Enter an API key: the admin key or a tenant key.');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      onSignedIn(value, await probeKey(value));
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) setError('This API key was not accepted: it is unknown or revoked. Check the key and try again.');
      else if (err instanceof ApiError) setError(`The registry refused the sign-in: ${err.message} (${err.status}).`);
      else setError('The registry could not be reached. Is it running?');
    } finally {
      setBusy(false);
    }
  }

  return (
    <main id="main" className="sign-in">
      <h1>MCP Registry</h1>
      <p className="muted">Sign in with the platform admin key or a tenant API key. The key is kept in this browser tab only.</p>
      {notice && <p className="notice" role="status">{notice}</p>}
      <form onSubmit={submit} noValidate>
        <label htmlFor="api-key">API key</label>
        <input
          id="api-key"
          name="api-key"
          type="password"
          autoComplete="off"
          spellCheck={false}
          value={key}
          onChange={(e) => setKey(e.target.value)}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? 'sign-in-error' : undefined}
          autoFocus
        />
        {error && (
          <p id="sign-in-error" className="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
