// Renders the server's OpenAPI document with Redoc, loaded from this server
// (the page works with no internet). Redoc's telemetry is switched off.
const root = document.getElementById('reference');
const specUrl = root.dataset.specUrl;

function fail(err) {
  const status = root.querySelector('.status') || root;
  status.textContent = '';
  const p = document.createElement('p');
  p.className = 'error';
  p.append('The API reference could not be shown (' + (err && err.message ? err.message : err) + '). The OpenAPI document is at ');
  const a = document.createElement('a');
  a.href = specUrl;
  a.textContent = specUrl;
  p.append(a, '.');
  status.append(p);
}

try {
  const { init } = await import(root.dataset.renderer);
  // Fetch the document first, so that a failure shows here rather than as
  // an empty page.
  const res = await fetch(specUrl, { credentials: 'same-origin', headers: { Accept: 'application/json' } });
  if (!res.ok) throw new Error('GET ' + specUrl + ' answered ' + res.status);
  const spec = await res.json();
  root.querySelector('.status')?.remove();
  init(spec, {
    disableTelemetry: true,
    router: 'hash', // one page: links stay under /docs/#/…
    hideLoading: true,
    sortRequiredPropsFirst: true,
    jsonSamplesExpandLevel: 3,
  }, root);
  document.documentElement.classList.add('reference-ready');
} catch (err) {
  fail(err);
}
