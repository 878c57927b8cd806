/** The parameters of a Bearer challenge (RFC 6750 §3, RFC 9728 §5.1) that upstream OAuth reads. */
export interface BearerChallenge {
  resourceMetadata?: string;
  scope?: string[];
  error?: string;
}

/**
 * Reads the Bearer challenge of a WWW-Authenticate header (which may hold several challenges, comma
 * separated, with quoted or bare parameter values). Other schemes are skipped; nothing here is trusted.
 */
export function parseBearerChallenge(header: string | null | undefined): BearerChallenge | undefined {
  if (!header) return undefined;
  const text = header.slice(0, 8192);
  const start = /(?:^|,)\s*Bearer(?=\s|,|$)/i.exec(text);
  if (!start) return undefined;
  const params: Record<string, string> = {};
  const re = /\s*([A-Za-z0-9_\-.]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]*))\s*(?:,|$)/y;
  re.lastIndex = start.index + start[0].length;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const name = m[1].toLowerCase();
    if (!(name in params)) params[name] = m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : (m[3] ?? '');
    if (re.lastIndex >= text.length) break;
  }
  const scope = params.scope?.split(/\s+/).filter(Boolean);
  return {
    ...(params.resource_metadata ? { resourceMetadata: params.resource_metadata } : {}),
    ...(scope && scope.length ? { scope } : {}),
    ...(params.error ? { error: params.error } : {}),
  };
}
