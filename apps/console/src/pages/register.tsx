import { api, ok } from '../api';
import type { Role } from '../app';
import { navigate, href } from '../router';
import { ServerForm } from './server-form';

export function RegisterPage({ role }: { role: Role }) {
  return (
    <section aria-labelledby="register-title">
      <h1 id="register-title">Register a server</h1>
      <p className="muted">
        {role === 'admin'
          ? 'A BUILT_IN server of the platform (any transport, stdio included), or a CUSTOM server of a tenant.'
          : 'A CUSTOM server of your tenant, reached over HTTPS. Its discovery starts as soon as it is registered.'}
      </p>
      <ServerForm
        role={role}
        submitLabel="Register"
        onSubmit={async (body) => {
          const server = await ok(api.POST('/api/v1/servers', { body }));
          navigate(href('servers', server.id));
        }}
      />
    </section>
  );
}
