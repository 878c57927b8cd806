import { useCallback, useEffect, useState } from 'react';
import { session, whenUnauthorized } from './api';
import { AuditPage, TenantPage, TenantsPage } from './pages/admin';
import { CatalogEntryPage, CatalogPage } from './pages/catalog';
import { CatalogImportPage } from './pages/catalog-import';
import { CatalogSourcesPage } from './pages/catalog-sources';
import { RegisterPage } from './pages/register';
import { SearchPage } from './pages/search';
import { ServerPage } from './pages/server';
import { ServersPage } from './pages/servers';
import { SignIn } from './pages/sign-in';
import { TryToolPage } from './pages/try-tool';
import { VirtualServerPage, VirtualServersPage } from './pages/virtual-servers';
import { WebhookPage, WebhooksPage } from './pages/webhooks';
import { href, useRoute } from './router';

export type Role = 'admin' | 'tenant';
const ROLE = 'mcpr.console.role';

export function App() {
  const [role, setRole] = useState<Role | null>(() => (session.key() ? (sessionStorage.getItem(ROLE) as Role | null) : null));
  const [signedOutWhy, setSignedOutWhy] = useState<string | null>(null);
  const signOut = useCallback((why: string | null) => {
    session.clear();
    sessionStorage.removeItem(ROLE);
    setRole(null);
    setSignedOutWhy(why);
  }, []);
  useEffect(() => whenUnauthorized(() => signOut('The registry no longer accepts this API key (it may have been revoked). Sign in again.')), [signOut]);

  if (!role) {
    return (
      <SignIn
        notice={signedOutWhy}
        onSignedIn={(key, r) => {
          session.set(key);
          sessionStorage.setItem(ROLE, r);
          setSignedOutWhy(null);
          setRole(r);
        }}
      />
    );
  }
  return <Shell role={role} onSignOut={() => signOut('Signed out. The key was forgotten by this tab.')} />;
}

function Shell({ role, onSignOut }: { role: Role; onSignOut: () => void }) {
  const route = useRoute();
  const [first = 'servers'] = route.path;
  const section = first === 'admin' ? route.path[1] ?? 'tenants' : first;
  const link = (to: string, label: string, active: boolean) => (
    <a href={to} aria-current={active ? 'page' : undefined}>
      {label}
    </a>
  );
  return (
    <>
      <a className="skip" href="#main" onClick={(e) => { e.preventDefault(); document.getElementById('main')?.focus(); }}>
        Skip to content
      </a>
      <header className="top">
        <a className="brand" href={href('servers')}>
          MCP Registry
        </a>
        <nav aria-label="Main">
          {link(href('servers'), 'Servers', section === 'servers')}
          {link(href('register'), 'Register', section === 'register')}
          {link(href('search'), 'Search tools', section === 'search')}
          {link(href('virtual'), 'Virtual servers', section === 'virtual')}
          {link(href('catalog'), 'Catalog', section === 'catalog')}
          {link(href('webhooks'), 'Webhooks', section === 'webhooks')}
          {role === 'admin' && link(href('admin', 'sources'), 'Catalog sources', section === 'sources')}
          {role === 'admin' && link(href('admin', 'tenants'), 'Tenants', section === 'tenants')}
          {role === 'admin' && link(href('admin', 'audit'), 'Audit log', section === 'audit')}
        </nav>
        <div className="who">
          <span className="badge">{role === 'admin' ? 'Platform admin' : 'Tenant'}</span>
          <button type="button" onClick={onSignOut}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <Page role={role} path={route.path} query={route.query} />
      </main>
    </>
  );
}

function Page({ role, path, query }: { role: Role; path: string[]; query: URLSearchParams }) {
  const [a, b, c, d] = path;
  if (!a || a === 'servers') {
    if (b && c === 'tools' && d) return <TryToolPage key={`${b}/${d}`} serverId={b} toolName={d} />;
    if (b) return <ServerPage key={b} serverId={b} role={role} />;
    return <ServersPage />;
  }
  if (a === 'register') return <RegisterPage role={role} />;
  if (a === 'search') return <SearchPage initial={query.get('q') ?? ''} />;
  if (a === 'virtual') return b ? <VirtualServerPage key={b} virtualId={b} /> : <VirtualServersPage />;
  if (a === 'webhooks') return b ? <WebhookPage key={b} webhookId={b} /> : <WebhooksPage />;
  if (a === 'catalog') {
    if (b === 'import' && !c) return <CatalogImportPage />;
    if (b && c) return <CatalogEntryPage key={`${b}@${c}`} name={b} version={c} role={role} />;
    if (!b) return <CatalogPage role={role} />;
  }
  if (a === 'admin' && role === 'admin') {
    if (b === 'audit') return <AuditPage />;
    if (b === 'sources') return <CatalogSourcesPage />;
    if (b === 'tenants' && c) return <TenantPage key={c} tenantId={c} />;
    return <TenantsPage />;
  }
  return (
    <section>
      <h1>Not found</h1>
      <p>
        There is no such page. <a href={href('servers')}>Back to the servers</a>.
      </p>
    </section>
  );
}
