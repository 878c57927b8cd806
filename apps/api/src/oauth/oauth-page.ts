const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

/** The small page the person sees at the end of an authorization: every piece of text escaped, no script. */
export function callbackPage(ok: boolean, title: string, detail: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem;color:#1f2328}h1{font-size:1.4rem;color:${ok ? '#1a7f37' : '#cf222e'}}p{white-space:pre-wrap}</style>
</head><body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(detail)}</p></body></html>
`;
}
