type Doc = {
  info: { title: string; version: string; description?: string };
  paths?: Record<string, Record<string, any>>;
};

const esc = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

/**
 * A self-contained API reference rendered from the OpenAPI document: no CDN scripts, so it works
 * on closed networks and never drifts from the code.
 */
export function renderReferencePage(doc: Doc): string {
  const byTag = new Map<string, string[]>();
  for (const [path, ops] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(ops)) {
      const tag = op.tags?.[0] ?? 'Other';
      const params = (op.parameters ?? [])
        .map(
          (p: any) =>
            `<li><code>${esc(p.name)}</code> <em>${esc(p.in)}</em>${p.required ? ' (required)' : ''}${p.description ? ` — ${esc(p.description)}` : ''}</li>`,
        )
        .join('');
      const body = op.requestBody
        ? `<details><summary>Request body</summary><pre>${esc(JSON.stringify(op.requestBody.content['application/json'].schema, null, 2))}</pre></details>`
        : '';
      const statuses = Object.entries(op.responses ?? {})
        .map(([status, r]: [string, any]) => `<li><code>${status}</code> ${esc(r.description ?? '')}</li>`)
        .join('');
      const html = `<section id="${esc(op.operationId)}"><h3><span class="m ${method}">${method.toUpperCase()}</span> <code>${esc(path)}</code></h3>
<p><strong>${esc(op.summary ?? '')}</strong></p>${op.description ? `<p>${esc(op.description)}</p>` : ''}
${params ? `<h4>Parameters</h4><ul>${params}</ul>` : ''}${body}<h4>Responses</h4><ul>${statuses}</ul></section>`;
      byTag.set(tag, [...(byTag.get(tag) ?? []), html]);
    }
  }
  const nav = [...byTag.keys()].map((t) => `<a href="#tag-${esc(t)}">${esc(t)}</a>`).join(' · ');
  const sections = [...byTag.entries()]
    .map(([t, ops]) => `<h2 id="tag-${esc(t)}">${esc(t)}</h2>${ops.join('\n')}`)
    .join('\n');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(doc.info.title)}</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:960px;margin:2rem auto;padding:0 1rem;color:#222}
code,pre{font-family:ui-monospace,monospace}pre{background:#f5f5f5;padding:.75rem;overflow:auto;font-size:12px}
section{border-top:1px solid #ddd;padding:.5rem 0}.m{display:inline-block;min-width:4.5em;font-size:12px;padding:2px 6px;border-radius:3px;color:#fff;text-align:center}
.get{background:#2b7bb9}.post{background:#2e8b57}.patch{background:#b8860b}.delete{background:#b22222}</style></head>
<body><h1>${esc(doc.info.title)} <small>v${esc(doc.info.version)}</small></h1><p>${esc(doc.info.description ?? '')}</p>
<p>Machine-readable: <a href="/api/v1/openapi.json">/api/v1/openapi.json</a> (OpenAPI 3.1).</p><nav>${nav}</nav>${sections}</body></html>`;
}
