import { type ReactNode, useState } from 'react';
import { api, errorText, ok, type Server } from '../api';
import type { components } from '../generated/api';
import { ErrorNote, Json } from '../ui';

type Schemas = components['schemas'];
type Resource = Schemas['ResourceDto'];
type Template = Schemas['ResourceTemplateDto'];
type Prompt = Schemas['PromptDto'];

/** A server's item is what it sent: a field the DTO names a string may be anything, so only strings are shown. */
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const many = <T,>(v: unknown): T[] => (Array.isArray(v) ? (v as T[]) : []);

const PAGE = 100;

/** A list read one page at a time, the first when it is opened, the next on "More". */
function usePaged<T>(load: (token?: string) => Promise<{ items: T[]; next?: string }>) {
  const [items, setItems] = useState<T[] | null>(null);
  const [next, setNext] = useState<string | undefined>();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const more = async (token?: string) => {
    if (busy) return;
    setBusy(true);
    try {
      const page = await load(token);
      setItems((x) => [...(token ? (x ?? []) : []), ...page.items]);
      setNext(page.next);
      setError(null);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return { items, next, error, busy, first: () => (items === null ? more() : undefined), more: () => more(next) };
}

function Listing<T>({ id, title, count, failed, list, render }: { id: string; title: string; count: number | null | undefined; failed?: string; list: ReturnType<typeof usePaged<T>>; render: (item: T, i: number) => ReactNode }) {
  return (
    <details className="listing" data-listing={id} onToggle={(e) => (e.currentTarget as HTMLDetailsElement).open && void list.first()}>
      <summary>
        {title} ({count ?? 0})
      </summary>
      {failed && <p className="error small">{`Not read whole: ${failed}`}</p>}
      <ErrorNote error={list.error} />
      {list.items === null ? (
        <p className="muted">{list.busy ? 'Loading…' : ''}</p>
      ) : list.items.length === 0 ? (
        <p className="muted">None.</p>
      ) : (
        <ul className="tools">{list.items.map(render)}</ul>
      )}
      {list.next && (
        <button type="button" onClick={() => void list.more()} disabled={list.busy}>
          More {title.toLowerCase()}
        </button>
      )}
    </details>
  );
}

/** A resource or a template: its address (a URI or URI template, as text), name, MIME type and description. */
function ResourceItem({ address, item, data }: { address?: string; item: { name?: unknown; title?: unknown; mimeType?: unknown; description?: unknown }; data: Record<string, string | undefined> }) {
  return (
    <li className="tool" {...data}>
      <div className="mono break strong">{address}</div>
      <div>
        {str(item.title) || str(item.name)} {str(item.mimeType) && <span className="chip mono">{str(item.mimeType)}</span>}
      </div>
      {str(item.description) && <p className="prewrap description small">{str(item.description)}</p>}
    </li>
  );
}

/** What else the server offers besides tools, as last discovered: untrusted text, shown as text (URIs too: never links). */
export function ServerListings({ server }: { server: Server }) {
  const path = (token?: string) => ({ params: { path: { id: server.id }, query: { pageSize: PAGE, pageToken: token } } });
  const resources = usePaged<Resource>(async (t) => {
    const p = await ok(api.GET('/api/v1/servers/{id}/resources', path(t)));
    return { items: many<Resource>(p.resources), next: p.nextPageToken };
  });
  const templates = usePaged<Template>(async (t) => {
    const p = await ok(api.GET('/api/v1/servers/{id}/resource-templates', path(t)));
    return { items: many<Template>(p.resourceTemplates), next: p.nextPageToken };
  });
  const prompts = usePaged<Prompt>(async (t) => {
    const p = await ok(api.GET('/api/v1/servers/{id}/prompts', path(t)));
    return { items: many<Prompt>(p.prompts), next: p.nextPageToken };
  });
  const errors = (server.listingErrors ?? {}) as Record<string, string>;
  const METHODS = { resources: 'resources/list', templates: 'resources/templates/list', prompts: 'prompts/list' } as const;
  function listing<T>(id: keyof typeof METHODS, title: string, count: number | null | undefined, list: ReturnType<typeof usePaged<T>>, render: (item: T, i: number) => ReactNode) {
    return <Listing id={id} title={title} count={count} failed={errors[METHODS[id]]} list={list} render={render} />;
  }
  return (
    <section aria-labelledby="listings-title">
      <h2 id="listings-title">Resources and prompts</h2>
      {listing('resources', 'Resources', server.resourceCount, resources, (r, i) => <ResourceItem key={i} address={str(r.uri)} item={r} data={{ 'data-resource': str(r.uri) }} />)}
      {listing('templates', 'Resource templates', server.resourceTemplateCount, templates, (r, i) => <ResourceItem key={i} address={str(r.uriTemplate)} item={r} data={{ 'data-template': str(r.uriTemplate) }} />)}
      {listing('prompts', 'Prompts', server.promptCount, prompts, (p, i) => (
          <li key={i} className="tool" data-prompt={str(p.name)}>
            <div className="mono strong">{str(p.name)}</div>
            {str(p.title) && <div>{str(p.title)}</div>}
            {str(p.description) && <p className="prewrap description small">{str(p.description)}</p>}
            {many<{ name?: unknown; description?: unknown; required?: unknown }>(p.arguments).length ? (
              <ul className="plain small">
                {many<{ name?: unknown; description?: unknown; required?: unknown }>(p.arguments).map((a, j) => (
                  <li key={j}>
                    <span className="mono">{str(a.name)}</span> {a.required === true && <span className="badge required-badge">required</span>} {str(a.description)}
                  </li>
                ))}
              </ul>
            ) : null}
            <details>
              <summary className="small">As sent</summary>
              <Json value={p} label={`${str(p.name) ?? 'prompt'} as the server sent it`} />
            </details>
          </li>
        ))}
    </section>
  );
}
