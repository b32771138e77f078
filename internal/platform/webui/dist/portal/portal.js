// The developer portal: plain JavaScript over the portal API (/portal/api).
//
// Signing up or in calls the JSON API, which answers a portal token; the
// page hands the token at once to POST /portal/session, which keeps it in
// the HttpOnly pp_session cookie. From then on every call relies on the
// cookie (same-origin only): the token is never stored by the page, and a
// new API key lives only in this page's memory until it is dismissed. On
// opening, GET /portal/session says whether the cookie still signs in.

import { request } from './api.js';

const $ = (sel, root = document) => root.querySelector(sel);
const $$ = (sel, root = document) => Array.from(root.querySelectorAll(sel));

const state = {
  developer: null,
  keys: [],
  usage: null,
  newKey: null, // {key, name, mode, keyPrefix}: shown once, then forgotten
  props: { list: [], current: null, from: null, availability: null },
  webhooks: [],
  deliveriesOf: null, // the endpoint whose deliveries are shown
};

// ---- the API -------------------------------------------------------------

async function api(method, path, body) {
  try {
    return await request(method, path, body);
  } catch (err) {
    if (err.status === 401 && state.developer && !path.endsWith('/login') && !path.endsWith('/signup')) {
      sessionEnded();
    }
    throw err;
  }
}

// ---- small helpers -------------------------------------------------------

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === false || v == null) continue;
    if (k === 'class') node.className = v;
    else if (k === 'text') node.textContent = v;
    else if (k.startsWith('data-') || k.startsWith('aria-') || k === 'role' || k === 'type' || k === 'id' || k === 'title') node.setAttribute(k, v);
    else node[k] = v;
  }
  for (const c of children.flat()) if (c != null && c !== false) node.append(c);
  return node;
}

const SVG = 'http://www.w3.org/2000/svg';
function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  for (const c of children) if (c != null) node.append(c);
  return node;
}

function sentence(s) {
  s = String(s || '').trim();
  if (!s) return s;
  s = s[0].toUpperCase() + s.slice(1);
  return /[.!?]$/.test(s) ? s : s + '.';
}

const dateFmt = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric' });
const dateTimeFmt = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' });
const dayFmt = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' });
const numFmt = new Intl.NumberFormat('en-GB');

function ago(iso) {
  const s = (Date.now() - new Date(iso).getTime()) / 1000;
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return dateFmt.format(new Date(iso));
}

let toastTimer;
function toast(message) {
  const t = $('#toast');
  t.textContent = message;
  t.classList.add('show');
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => t.classList.remove('show'), 3500);
}

async function copyText(text, button) {
  let ok = false;
  try {
    await navigator.clipboard.writeText(text);
    ok = true;
  } catch {
    // Without the asynchronous clipboard (a page served over plain HTTP
    // from another machine): copy through a selection.
    const ta = el('textarea', { class: 'visually-hidden', value: text });
    document.body.append(ta);
    ta.select();
    try { ok = document.execCommand('copy'); } catch { ok = false; }
    ta.remove();
  }
  if (button) {
    const label = button.dataset.label || button.textContent;
    button.dataset.label = label;
    button.textContent = ok ? 'Copied ✓' : 'Select and copy';
    button.classList.toggle('copied', ok);
    setTimeout(() => { button.textContent = label; button.classList.remove('copied'); }, 2000);
  }
  toast(ok ? 'Copied to the clipboard.' : 'Copying failed: select the text and copy it yourself.');
  return ok;
}

// ---- forms: validation and errors in place ------------------------------

const messages = {
  name: { valueMissing: 'Enter a name.', tooShort: 'Use at least 2 characters.', tooLong: 'Use at most 100 characters.' },
  email: { valueMissing: 'Enter your e-mail address.', typeMismatch: 'Enter an e-mail address like name@example.com.', tooLong: 'That address is too long.' },
  password: { valueMissing: 'Enter your password.', tooShort: 'Use at least 8 characters.', tooLong: 'Use at most 256 characters.' },
  url: { valueMissing: 'Enter the URL of your receiver.', typeMismatch: 'Enter a URL like https://your-server/webhooks.', tooLong: 'Use at most 2048 characters.' },
};

function fieldMessage(input) {
  const v = input.validity;
  const m = messages[input.name] || {};
  for (const k of ['valueMissing', 'typeMismatch', 'tooShort', 'tooLong']) {
    if (v[k]) return m[k] || input.validationMessage;
  }
  // minlength is checked by the browser only after the user edits; check it
  // for values set otherwise too.
  const min = Number(input.getAttribute('minlength') || 0);
  const len = (input.type === 'password' ? input.value : input.value.trim()).length;
  if (min && len && len < min) return m.tooShort || `Use at least ${min} characters.`;
  if (input.required && !input.value.trim()) return m.valueMissing || 'This field is required.';
  return '';
}

function setFieldError(form, name, message) {
  const input = form.elements[name];
  const errEl = form.querySelector(`#${form.id.replace('-form', '')}-${name}-error`);
  if (errEl) {
    errEl.textContent = message || '';
  }
  const targets = input instanceof RadioNodeList ? Array.from(input) : input ? [input] : [];
  for (const t of targets) {
    if (message) t.setAttribute('aria-invalid', 'true');
    else t.removeAttribute('aria-invalid');
  }
  return !!errEl;
}

function clearErrors(form) {
  const fe = $('.form-error', form);
  if (fe) { fe.hidden = true; fe.textContent = ''; }
  for (const p of $$('.field-error', form)) p.textContent = '';
  for (const i of $$('[aria-invalid]', form)) i.removeAttribute('aria-invalid');
}

function showFormError(box, err) {
  box.textContent = '';
  const msg = typeof err === 'string' ? err : describe(err);
  box.append(msg);
  if (err && err.docUrl) {
    box.append(' ', el('a', { href: err.docUrl, text: 'What does this mean?' }));
  }
  box.hidden = false;
}

function describe(err) {
  if (!err) return 'Something went wrong.';
  if (err.code === 'RATE_LIMITED') {
    return `Too many attempts. Try again in ${err.retryAfter || 60} seconds.`;
  }
  if (err.status >= 500) {
    return `The server failed (${err.code || err.status}). Try again in a moment${err.requestId ? `; reference ${err.requestId}` : ''}.`;
  }
  return sentence(err.message);
}

// validate checks the form's fields in the browser, shows each problem
// under its field and focuses the first.
function validate(form, names) {
  let first = null;
  for (const name of names) {
    const input = form.elements[name];
    if (!input || input instanceof RadioNodeList) continue;
    const msg = fieldMessage(input);
    setFieldError(form, name, msg);
    if (msg && !first) first = input;
  }
  if (first) first.focus();
  return !first;
}

// serverErrors shows a failed request's errors in place: each field named
// in error.details under its input, anything else above the form.
function serverErrors(form, err, extra) {
  const box = $('.form-error', form);
  let first = null;
  let shown = false;
  if (err.code === 'VALIDATION_ERROR' && err.details) {
    const rest = [];
    for (const [field, reason] of Object.entries(err.details)) {
      if (setFieldError(form, field, sentence(reason))) {
        shown = true;
        const input = form.elements[field];
        if (!first && input) first = input instanceof RadioNodeList ? input[0] : input;
      } else {
        rest.push(`${field}: ${reason}`);
      }
    }
    if (rest.length) { showFormError(box, sentence(`Please check ${rest.join('; ')}`)); shown = true; }
  }
  if (extra && extra(err)) shown = true;
  if (!shown) showFormError(box, err);
  if (first) first.focus();
}

function liveRevalidate(form, names) {
  for (const name of names) {
    const input = form.elements[name];
    if (!input || input instanceof RadioNodeList) continue;
    input.addEventListener('input', () => {
      if (input.getAttribute('aria-invalid') === 'true') setFieldError(form, name, fieldMessage(input));
    });
    input.addEventListener('blur', () => {
      if (input.value && form.dataset.tried) setFieldError(form, name, fieldMessage(input));
    });
  }
}

async function busy(form, fn) {
  const btn = $('button[type=submit]', form);
  const label = btn.textContent;
  btn.disabled = true;
  btn.setAttribute('aria-busy', 'true');
  btn.textContent = btn.dataset.busy || 'Working…';
  try {
    return await fn();
  } finally {
    btn.disabled = false;
    btn.removeAttribute('aria-busy');
    btn.textContent = label;
  }
}

// ---- views ----------------------------------------------------------------

function show(view) {
  $('#boot').hidden = true;
  $('#view-auth').hidden = view !== 'auth';
  $('#view-app').hidden = view !== 'app';
  $('#account').hidden = view !== 'app';
}

function selectTab(name, focus) {
  for (const t of ['signup', 'login']) {
    const tab = $(`#tab-${t}`);
    const on = t === name;
    tab.setAttribute('aria-selected', String(on));
    tab.tabIndex = on ? 0 : -1;
    $(`#panel-${t}`).hidden = !on;
  }
  if (focus === 'tab') $(`#tab-${name}`).focus();
  if (focus === 'field') $(`#${name}-email`).focus();
}

function showAuth(tab, notice) {
  state.developer = null;
  state.newKey = null;
  show('auth');
  selectTab(tab || 'signup');
  if (notice) showFormError($(`#${tab || 'signup'}-form .form-error`), notice);
  document.title = 'Developer portal · Wayfarer Property Platform';
}

function sessionEnded() {
  showAuth('login', 'Your session has ended. Sign in again.');
}

async function showApp(developer) {
  state.developer = developer;
  $('#dev-name').textContent = developer.name;
  $('#dev-email').textContent = developer.email;
  $('#account-email').textContent = developer.email;
  document.title = 'API keys · Developer portal';
  show('app');
  renderQuickstart();
  await Promise.all([loadKeys(), loadUsage(), loadProperties(), loadWebhooks(), loadApps()]);
}

// ---- connected apps (OAuth grants) --------------------------------------

async function loadApps() {
  const box = $('#apps-error');
  let apps = [];
  try {
    apps = (await api('GET', '/portal/api/connected-apps')).data || [];
    box.hidden = true;
  } catch (err) {
    if (err.status !== 401) showFormError(box, err);
  }
  const list = $('#apps');
  list.textContent = '';
  $('#apps-empty').hidden = apps.length > 0;
  for (const a of apps) {
    const meta = [`Connected ${dateFmt.format(new Date(a.createdAt))}`, a.lastUsedAt ? `last used ${ago(a.lastUsedAt)}` : 'never used'];
    list.append(el('li', { class: 'key', 'data-id': a.id },
      el('div', { class: 'key-top' }, el('span', { class: 'key-name', text: a.client.name })),
      el('p', { class: 'key-meta', text: a.client.uri || a.client.id }),
      el('p', { class: 'key-meta', text: meta.join(' · ') }),
      el('div', { class: 'scopes' }, (a.scopes || []).map((s) => el('span', { class: 'chip', text: s }))),
      el('div', { class: 'key-actions' },
        el('button', { type: 'button', class: 'btn btn-danger btn-small revoke', 'aria-label': `Revoke ${a.client.name}`, text: 'Revoke' })),
    ));
  }
}

function setupApps() {
  $('#apps').addEventListener('click', async (e) => {
    const btn = e.target.closest('button.revoke');
    if (!btn) return;
    const item = btn.closest('li');
    const name = item.querySelector('.key-name').textContent;
    const yes = await confirmDialog({
      title: `Revoke “${name}”?`,
      body: 'Its access stops at once; it must ask you again to reconnect.',
      ok: 'Revoke',
      danger: true,
    });
    if (!yes) { btn.focus(); return; }
    try {
      await api('DELETE', `/portal/api/connected-apps/${encodeURIComponent(item.dataset.id)}`);
      toast(`“${name}” revoked.`);
      await loadApps();
      $('#apps-title').focus();
    } catch (err) {
      if (err.status !== 401) showFormError($('#apps-error'), err);
    }
  });
}

// ---- sign up, sign in, sign out -----------------------------------------

async function startSession(res) {
  // Turn the token into the HttpOnly session cookie; the page keeps no copy.
  await api('POST', '/portal/session', { token: res.token });
  for (const f of ['#signup-form', '#login-form']) $(f).reset();
  await showApp(res.developer);
  $('#app-title').focus();
}

function setupAuth() {
  const signup = $('#signup-form');
  const login = $('#login-form');
  liveRevalidate(signup, ['name', 'email', 'password']);
  liveRevalidate(login, ['email', 'password']);

  signup.addEventListener('submit', async (e) => {
    e.preventDefault();
    signup.dataset.tried = '1';
    clearErrors(signup);
    if (!validate(signup, ['name', 'email', 'password'])) return;
    const body = { name: signup.elements.name.value.trim(), email: signup.elements.email.value.trim(), password: signup.elements.password.value };
    $('button[type=submit]', signup).dataset.busy = 'Creating your account…';
    await busy(signup, async () => {
      try {
        await startSession(await api('POST', '/portal/api/signup', body));
      } catch (err) {
        serverErrors(signup, err, (err) => {
          if (err.code !== 'EMAIL_ALREADY_REGISTERED') return false;
          setFieldError(signup, 'email', 'An account with this e-mail already exists.');
          const p = $('#signup-email-error');
          p.append(' ', el('button', { type: 'button', class: 'link', text: 'Sign in instead', onclick: () => {
            $('#login-email').value = body.email;
            selectTab('login');
            $('#login-password').focus();
          } }));
          signup.elements.email.focus();
          return true;
        });
      }
    });
  });

  login.addEventListener('submit', async (e) => {
    e.preventDefault();
    login.dataset.tried = '1';
    clearErrors(login);
    if (!validate(login, ['email', 'password'])) return;
    const body = { email: login.elements.email.value.trim(), password: login.elements.password.value };
    $('button[type=submit]', login).dataset.busy = 'Signing in…';
    await busy(login, async () => {
      try {
        await startSession(await api('POST', '/portal/api/login', body));
      } catch (err) {
        if (err.status === 401) {
          showFormError($('.form-error', login), 'The e-mail or password is wrong.');
          login.elements.password.select();
          login.elements.password.focus();
          return;
        }
        serverErrors(login, err);
      }
    });
  });

  // Tabs: click, or arrow keys between them.
  for (const t of ['signup', 'login']) {
    const tab = $(`#tab-${t}`);
    tab.addEventListener('click', () => selectTab(t));
    tab.addEventListener('keydown', (e) => {
      if (['ArrowLeft', 'ArrowRight', 'Home', 'End'].includes(e.key)) {
        e.preventDefault();
        selectTab(t === 'signup' ? 'login' : 'signup', 'tab');
      }
    });
  }
  for (const b of $$('[data-tab]')) {
    b.addEventListener('click', () => selectTab(b.dataset.tab, 'field'));
  }

  $('#logout').addEventListener('click', async () => {
    try { await api('POST', '/portal/logout'); } catch { /* the cookie is gone or was never there */ }
    showAuth('login');
    $('#new-key').hidden = true;
    $('#auth-title').focus();
    toast('You are signed out.');
  });
}

// ---- keys -----------------------------------------------------------------

async function loadKeys() {
  const box = $('#keys-error');
  try {
    const res = await api('GET', '/portal/api/keys');
    state.keys = res.data || [];
    box.hidden = true;
  } catch (err) {
    if (err.status !== 401) showFormError(box, err);
  }
  renderKeys();
}

function renderKeys() {
  const list = $('#keys');
  list.textContent = '';
  const keys = state.keys;
  $('#keys-empty').hidden = keys.length > 0;
  $('#keys-count').textContent = keys.length ? `${keys.length} working` : '';
  for (const k of keys) {
    const meta = [`Created ${dateFmt.format(new Date(k.createdAt))}`, k.lastUsedAt ? `last used ${ago(k.lastUsedAt)}` : 'never used'];
    const item = el('li', { class: 'key', 'data-key-id': k.id, 'data-key-prefix': k.keyPrefix },
      el('div', { class: 'key-top' },
        el('span', { class: 'key-name', text: k.name }),
        el('span', { class: `badge badge-${k.mode}`, text: k.mode === 'live' ? 'Live' : 'Test' }),
      ),
      el('code', { class: 'key-prefix', text: `${k.keyPrefix}…` }),
      el('p', { class: 'key-meta', text: meta.join(' · ') }),
      el('div', { class: 'scopes' }, (k.scopes || []).map((s) => el('span', { class: 'chip', text: s }))),
      k.expiresAt ? el('p', { class: 'key-expiry', text: `Rotated: keeps working until ${dateTimeFmt.format(new Date(k.expiresAt))}, then stops.` }) : null,
      el('div', { class: 'key-actions' },
        k.expiresAt ? null : el('button', { type: 'button', class: 'btn btn-secondary btn-small', 'data-action': 'rotate', 'aria-label': `Rotate key ${k.name}`, text: 'Rotate' }),
        el('button', { type: 'button', class: 'btn btn-danger btn-small', 'data-action': 'revoke', 'aria-label': `Revoke key ${k.name}`, text: 'Revoke' }),
      ),
    );
    list.append(item);
  }
  renderUsageKeys();
}

function confirmDialog({ title, body, ok, danger }) {
  const d = $('#confirm');
  $('#confirm-title').textContent = title;
  $('#confirm-body').textContent = body;
  const okBtn = $('#confirm-ok');
  okBtn.textContent = ok;
  okBtn.className = `btn ${danger ? 'btn-danger-solid' : 'btn-primary'}`;
  d.returnValue = '';
  return new Promise((resolve) => {
    d.addEventListener('close', () => resolve(d.returnValue === 'ok'), { once: true });
    d.showModal();
    $('#confirm-cancel').focus();
  });
}

function setupKeys() {
  $('#keys').addEventListener('click', async (e) => {
    const btn = e.target.closest('button[data-action]');
    if (!btn) return;
    const id = btn.closest('.key').dataset.keyId;
    const key = state.keys.find((k) => k.id === id);
    if (!key) return;
    const box = $('#keys-error');
    box.hidden = true;
    if (btn.dataset.action === 'revoke') {
      const yes = await confirmDialog({
        title: `Revoke “${key.name}”?`,
        body: `Calls with ${key.keyPrefix}… will be refused at once with 401 UNAUTHORIZED. This cannot be undone.`,
        ok: 'Revoke key',
        danger: true,
      });
      if (!yes) { btn.focus(); return; }
      try {
        await api('DELETE', `/portal/api/keys/${encodeURIComponent(id)}`);
        if (state.newKey && state.newKey.id === id) dismissNewKey();
        toast(`Key “${key.name}” revoked.`);
        await loadKeys();
        $('#keys-title').focus();
      } catch (err) {
        if (err.status !== 401) showFormError(box, err);
      }
    } else if (btn.dataset.action === 'rotate') {
      const yes = await confirmDialog({
        title: `Rotate “${key.name}”?`,
        body: `You get a new key with the same name, mode and scopes. The old key (${key.keyPrefix}…) keeps working for 24 hours, so you can deploy the new one without downtime.`,
        ok: 'Rotate key',
      });
      if (!yes) { btn.focus(); return; }
      try {
        const created = await api('POST', `/portal/api/keys/${encodeURIComponent(id)}/rotate`);
        revealKey(created, `Replaces ${key.keyPrefix}…, which stops working in 24 hours.`);
        await loadKeys();
      } catch (err) {
        if (err.status !== 401) showFormError(box, err);
      }
    }
  });

  const form = $('#create-form');
  liveRevalidate(form, ['name']);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    form.dataset.tried = '1';
    clearErrors(form);
    let ok = validate(form, ['name']);
    const scopes = $$('input[name=scopes]:checked', form).map((i) => i.value);
    if (!scopes.length) {
      setFieldError(form, 'scopes', 'Choose at least one scope.');
      if (ok) $('input[name=scopes]', form).focus();
      ok = false;
    }
    if (!ok) return;
    const body = { name: form.elements.name.value.trim(), mode: form.elements.mode.value, scopes };
    $('button[type=submit]', form).dataset.busy = 'Creating…';
    await busy(form, async () => {
      try {
        const created = await api('POST', '/portal/api/keys', body);
        form.elements.name.value = '';
        delete form.dataset.tried;
        revealKey(created, '');
        await loadKeys();
      } catch (err) {
        if (err.status !== 401) serverErrors(form, err);
      }
    });
  });
}

function revealKey(created, note) {
  state.newKey = { id: created.id, key: created.key, name: created.name, mode: created.mode, keyPrefix: created.keyPrefix };
  const section = $('#new-key');
  $('#new-key-value').textContent = created.key;
  const mode = created.mode === 'live' ? 'Live key' : 'Test key';
  $('#new-key-meta').textContent = `${mode} “${created.name}” with ${created.scopes.join(', ')}. ${note} The quick start below uses it until you dismiss this box.`.replace(/\s+/g, ' ').trim();
  section.hidden = false;
  renderQuickstart();
  section.scrollIntoView({ block: 'start', behavior: 'smooth' });
  section.focus({ preventScroll: true });
}

function dismissNewKey() {
  state.newKey = null;
  $('#new-key-value').textContent = '';
  $('#new-key').hidden = true;
  renderQuickstart();
}

function setupReveal() {
  $('#copy-key').addEventListener('click', (e) => copyText($('#new-key-value').textContent, e.currentTarget));
  // Focusing the key selects it whole, ready for Ctrl+C.
  $('#new-key-value').addEventListener('focus', (e) => {
    const range = document.createRange();
    range.selectNodeContents(e.target);
    const sel = getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
  });
  $('#dismiss-key').addEventListener('click', () => {
    dismissNewKey();
    $('#keys-title').focus();
  });
  $('#copy-quickstart').addEventListener('click', (e) => copyText($('#quickstart-cmd').textContent, e.currentTarget));
  $('#copy-mcp').addEventListener('click', (e) => copyText($('#mcp-config').textContent, e.currentTarget));
}

// ---- quick start ----------------------------------------------------------

function isoDay(d) { return d.toISOString().slice(0, 10); }

function renderQuickstart() {
  const now = new Date();
  const checkIn = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 10));
  const checkOut = new Date(checkIn.getTime() + 3 * 86400000);
  const key = state.newKey ? state.newKey.key : '$API_KEY';
  const url = `${location.origin}/api/v1/properties?city=tokyo&checkIn=${isoDay(checkIn)}&checkOut=${isoDay(checkOut)}&guests=2&sort=price`;
  $('#quickstart-cmd').textContent = `curl -s "${url}" \\\n  -H "X-API-KEY: ${key}"`;
  const mcp = { mcpServers: { wayfarer: { type: 'http', url: `${location.origin}/mcp`, headers: { 'X-API-KEY': key } } } };
  $('#mcp-config').textContent = JSON.stringify(mcp, null, 2);
  $('#qs-note').textContent = state.newKey
    ? `This command holds your new key “${state.newKey.name}”: it is filled in only while the key is on screen.`
    : 'Set API_KEY to one of your keys first (export API_KEY=pk_test_…), or create a key to have it filled in.';
}

// ---- usage ----------------------------------------------------------------

function renderUsageKeys() {
  const sel = $('#usage-key');
  const current = sel.value;
  const known = new Map(state.keys.map((k) => [k.id, `${k.name} (${k.keyPrefix}…)`]));
  for (const d of (state.usage && state.usage.data) || []) {
    if (!known.has(d.keyId)) known.set(d.keyId, `${d.keyPrefix}… (no longer working)`);
  }
  sel.textContent = '';
  sel.append(el('option', { value: '', text: 'All keys' }));
  for (const [id, label] of known) sel.append(el('option', { value: id, text: label }));
  sel.value = known.has(current) ? current : '';
}

async function loadUsage() {
  const box = $('#usage-error');
  try {
    state.usage = await api('GET', '/portal/api/usage');
    box.hidden = true;
  } catch (err) {
    if (err.status !== 401) showFormError(box, err);
    return;
  }
  renderUsageKeys();
  renderUsage();
}

function usageDays() {
  const u = state.usage;
  if (!u) return [];
  const keyId = $('#usage-key').value;
  const byDay = new Map();
  for (let d = new Date(`${u.from}T00:00:00Z`); isoDay(d) <= u.to; d = new Date(d.getTime() + 86400000)) {
    byDay.set(isoDay(d), { date: isoDay(d), requests: 0, rateLimited: 0 });
  }
  for (const row of u.data || []) {
    if (keyId && row.keyId !== keyId) continue;
    const day = byDay.get(row.date);
    if (!day) continue;
    day.requests += row.requests;
    day.rateLimited += row.rateLimited;
  }
  return Array.from(byDay.values());
}

// niceMax is the top of the chart's scale: four equal steps of a round,
// whole size, at least n.
function niceMax(n) {
  const raw = Math.max(1, n / 4);
  const p = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * p).find((s) => s >= raw && Number.isInteger(s)) || 10 * p;
  return step * 4;
}

function renderUsage() {
  const days = usageDays();
  const total = days.reduce((s, d) => s + d.requests, 0);
  const limited = days.reduce((s, d) => s + d.rateLimited, 0);
  const busiest = days.reduce((b, d) => (d.requests > (b ? b.requests : 0) ? d : b), null);

  const stats = $('#usage-stats');
  stats.textContent = '';
  const stat = (label, value, cls) => stats.append(el('div', { class: `stat ${cls || ''}` }, el('dt', { text: label }), el('dd', { text: value })));
  stat('Requests', numFmt.format(total));
  stat('Rate-limited', numFmt.format(limited), limited ? 'stat-warn' : '');
  stat('Busiest day', busiest ? `${dayFmt.format(new Date(`${busiest.date}T00:00:00Z`))} · ${numFmt.format(busiest.requests)}` : '—');

  drawChart(days, total);

  const rows = $('#usage-rows');
  rows.textContent = '';
  const active = days.filter((d) => d.requests || d.rateLimited);
  if (!active.length) {
    rows.append(el('tr', {}, el('td', { colSpan: 3, text: 'No requests in these 30 days.' })));
  }
  for (const d of active.reverse()) {
    rows.append(el('tr', {}, el('th', { scope: 'row', text: d.date }), el('td', { text: numFmt.format(d.requests) }), el('td', { text: numFmt.format(d.rateLimited) })));
  }
}

function drawChart(days, total) {
  const box = $('#usage-chart');
  const width = Math.max(280, Math.floor(box.clientWidth || 640));
  const narrow = width < 520;
  const height = narrow ? 180 : 220;
  const m = { top: 12, right: 8, bottom: 26, left: 40 };
  const w = width - m.left - m.right;
  const h = height - m.top - m.bottom;
  const max = niceMax(Math.max(0, ...days.map((d) => d.requests)));
  const y = (v) => m.top + h - (v / max) * h;
  const step = w / Math.max(1, days.length);
  const barW = Math.max(2, Math.min(22, step * 0.68));

  const label = total
    ? `Requests per day over the last ${days.length} days: ${numFmt.format(total)} in all.`
    : `No requests in the last ${days.length} days.`;
  const chart = svg('svg', { viewBox: `0 0 ${width} ${height}`, width: String(width), height: String(height), role: 'img', 'aria-label': label, class: 'chart-svg' });

  const grid = svg('g', { class: 'grid' });
  for (let i = 0; i <= 4; i++) {
    const v = (max / 4) * i;
    const yy = Math.round(y(v)) + 0.5;
    grid.append(svg('line', { x1: String(m.left), x2: String(width - m.right), y1: String(yy), y2: String(yy), class: i === 0 ? 'axis' : '' }));
    const t = svg('text', { x: String(m.left - 8), y: String(yy + 4), 'text-anchor': 'end', class: 'tick' });
    t.textContent = numFmt.format(Math.round(v * 10) / 10);
    grid.append(t);
  }
  chart.append(grid);

  const bars = svg('g', { class: 'bars' });
  const every = narrow ? 7 : 5;
  days.forEach((d, i) => {
    const cx = m.left + step * i + step / 2;
    const x = cx - barW / 2;
    const ok = d.requests - d.rateLimited;
    const g = svg('g', { class: 'day' });
    const title = svg('title');
    title.textContent = `${dayFmt.format(new Date(`${d.date}T00:00:00Z`))}: ${numFmt.format(d.requests)} requests${d.rateLimited ? `, ${numFmt.format(d.rateLimited)} rate-limited` : ''}`;
    g.append(title);
    // A transparent column makes the whole day hoverable.
    g.append(svg('rect', { x: String(cx - step / 2), y: String(m.top), width: String(step), height: String(h), class: 'hit' }));
    if (ok > 0) {
      g.append(svg('rect', { x: String(x), y: String(y(ok)), width: String(barW), height: String(Math.max(1, y(0) - y(ok))), rx: '3', class: 'bar-ok' }));
    }
    if (d.rateLimited > 0) {
      g.append(svg('rect', { x: String(x), y: String(y(d.requests)), width: String(barW), height: String(Math.max(1, y(ok) - y(d.requests))), rx: '3', class: 'bar-limited' }));
    }
    bars.append(g);
    const last = i === days.length - 1;
    if (last || (i % every === 0 && days.length - 1 - i >= every / 2)) {
      const t = svg('text', { x: String(cx), y: String(height - 8), 'text-anchor': 'middle', class: 'tick' });
      t.textContent = last ? 'Today' : dayFmt.format(new Date(`${d.date}T00:00:00Z`));
      bars.append(t);
    }
  });
  chart.append(bars);

  box.textContent = '';
  box.append(chart);
  if (!total) {
    box.append(el('p', { class: 'chart-empty' }, el('span', { text: 'No traffic yet: run the quick-start command, then refresh.' })));
  }
}

function setupUsage() {
  $('#usage-key').addEventListener('change', renderUsage);
  $('#usage-refresh').addEventListener('click', async (e) => {
    const b = e.currentTarget;
    b.disabled = true;
    await Promise.all([loadUsage(), loadKeys()]);
    b.disabled = false;
    b.focus();
    toast('Usage refreshed.');
  });
  let last = 0;
  new ResizeObserver(() => {
    const w = $('#usage-chart').clientWidth;
    if (state.usage && Math.abs(w - last) > 8) { last = w; renderUsage(); }
  }).observe($('#usage-chart'));
}

// ---- properties: the host's own properties and their calendar ----------

const CAL_DAYS = 60;

function propMode() { return $('#prop-mode').value; }

function addDays(iso, n) {
  const d = new Date(`${iso}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return isoDay(d);
}

async function loadProperties() {
  const box = $('#prop-error');
  box.hidden = true;
  try {
    const res = await api('GET', `/portal/api/properties?mode=${propMode()}&pageSize=100`);
    state.props.list = res.data;
  } catch (err) {
    showFormError(box, err);
    return;
  }
  const list = $('#prop-list');
  list.replaceChildren(...state.props.list.map((p) => el('li', {},
    el('button', { type: 'button', class: 'btn btn-secondary btn-small', 'aria-pressed': String(p.id === state.props.current),
      onclick: () => openProperty(p.id) }, `${p.name} · ${p.city} · ${p.status}`))));
  if (!state.props.list.length) list.append(el('li', { class: 'small muted', text: 'No properties in this inventory yet.' }));
  if (state.props.current && !state.props.list.some((p) => p.id === state.props.current)) {
    state.props.current = null;
    $('#prop-calendar').hidden = true;
  }
}

async function openProperty(id) {
  state.props.current = id;
  state.props.from = state.props.from || isoDay(new Date());
  $$('#prop-list button').forEach((b, i) => b.setAttribute('aria-pressed', String(state.props.list[i].id === id)));
  await loadCalendar();
}

async function loadCalendar() {
  const { current, from } = state.props;
  const to = addDays(from, CAL_DAYS);
  try {
    state.props.availability = await api('GET', `/portal/api/properties/${current}/availability?mode=${propMode()}&from=${from}&to=${to}`);
  } catch (err) {
    showFormError($('#prop-error'), err);
    return;
  }
  const p = state.props.list.find((x) => x.id === current);
  $('#cal-title').textContent = p ? `${p.name} (${p.status})` : '';
  $('#cal-range').textContent = `${from} – ${addDays(to, -1)}`;
  renderCalendar();
  $('#prop-calendar').hidden = false;
}

function money(m) {
  const digits = ['JPY', 'KRW', 'VND'].includes(m.currency) ? 0 : 2;
  return (m.amount / 10 ** digits).toLocaleString('en', { maximumFractionDigits: digits });
}

function renderCalendar() {
  const a = state.props.availability;
  const days = a.roomTypes.length ? a.roomTypes[0].nights.map((n) => n.date) : [];
  const head = el('tr', {}, el('th', { scope: 'col', text: `Room type (${a.currency})` }),
    days.map((d) => el('th', { scope: 'col', title: d }, `${d.slice(8)}`, el('span', { class: 'price', text: new Date(`${d}T00:00:00Z`).toUTCString().slice(0, 2) }))));
  const rows = a.roomTypes.map((rt) => el('tr', {}, el('th', { scope: 'row', text: rt.name }), rt.nights.map((n) => {
    const cls = n.closed ? 'cal-closed' : n.availableUnits === 0 ? 'cal-none' : n.availableUnits === 1 ? 'cal-low' : 'cal-ok';
    const marks = `${n.minStay > 1 ? `m${n.minStay}` : ''}${n.closedToArrival ? '↦' : ''}${n.closedToDeparture ? '↤' : ''}`;
    return el('td', { class: cls, 'data-date': n.date, 'data-room': rt.roomTypeId,
      title: `${rt.name}, ${n.date}: ${n.closed ? 'closed' : `${n.availableUnits} available`}, ${money(n.price)} ${n.price.currency}` },
    el('b', { text: n.closed ? '×' : String(n.availableUnits) }), el('span', { class: 'price', text: money(n.price) }),
    marks ? el('span', { class: 'mark', text: marks }) : null);
  })));
  $('#cal-grid').replaceChildren(el('thead', {}, head), el('tbody', {}, rows));
  const sel = $('#cal-form select[name=roomTypeId]');
  const keep = sel.value;
  sel.replaceChildren(...a.roomTypes.map((rt) => el('option', { value: rt.roomTypeId, text: rt.name })));
  if (keep) sel.value = keep;
}

function setupProperties() {
  $('#prop-mode').addEventListener('change', () => { state.props.current = null; $('#prop-calendar').hidden = true; loadProperties(); });
  $('#cal-prev').addEventListener('click', () => { state.props.from = addDays(state.props.from, -CAL_DAYS); loadCalendar(); });
  $('#cal-next').addEventListener('click', () => { state.props.from = addDays(state.props.from, CAL_DAYS); loadCalendar(); });
  const form = $('#cal-form');
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const box = $('#cal-form-error');
    box.hidden = true;
    const f = form.elements;
    const u = { roomTypeId: f.roomTypeId.value, from: f.from.value, to: f.to.value };
    if (f.units.value !== '') u.units = Number(f.units.value);
    if (f.price.value !== '') u.price = { amount: Math.round(Number(f.price.value) * (['JPY', 'KRW', 'VND'].includes(state.props.availability.currency) ? 1 : 100)) };
    if (f.minStay.value !== '') u.minStay = Number(f.minStay.value);
    if (f.closed.value !== '') u.closed = f.closed.value === 'true';
    try {
      const res = await api('PATCH', `/portal/api/properties/${state.props.current}/calendar?mode=${propMode()}`, { updates: [u] });
      toast(`${res.updatedNights} night(s) updated.`);
      await loadCalendar();
    } catch (err) {
      showFormError(box, err);
    }
  });
}

// ---- webhooks ---------------------------------------------------------------

async function loadWebhooks() {
  const box = $('#webhooks-error');
  try {
    const res = await api('GET', '/portal/api/webhooks');
    state.webhooks = res.data || [];
    box.hidden = true;
  } catch (err) {
    if (err.status !== 401) showFormError(box, err);
  }
  renderWebhooks();
}

const statusText = { active: 'Active', failing: 'Failing', disabled: 'Disabled' };

function renderWebhooks() {
  const list = $('#webhooks');
  list.textContent = '';
  const hooks = state.webhooks;
  $('#webhooks-empty').hidden = hooks.length > 0;
  $('#webhooks-count').textContent = hooks.length ? `${hooks.length} endpoint${hooks.length > 1 ? 's' : ''}` : '';
  for (const h of hooks) {
    const types = h.types && h.types.length ? h.types : ['every event'];
    list.append(el('li', { class: 'key', 'data-webhook-id': h.id },
      el('div', { class: 'key-top' },
        el('span', { class: `badge badge-${h.mode}`, text: h.mode === 'live' ? 'Live' : 'Test' }),
        el('span', { class: `badge badge-${h.status}`, text: statusText[h.status] || h.status }),
      ),
      el('code', { class: 'webhook-url', text: h.url }),
      h.statusReason ? el('p', { class: 'status-reason', text: h.statusReason }) : null,
      el('p', { class: 'key-meta', text: `Added ${dateFmt.format(new Date(h.createdAt))}` }),
      el('div', { class: 'scopes' }, types.map((t) => el('span', { class: 'chip', text: t }))),
      el('div', { class: 'key-actions' },
        el('button', { type: 'button', class: 'btn btn-secondary btn-small', 'data-action': 'test', 'aria-label': `Send a test event to ${h.url}`, text: 'Send test event' }),
        el('button', { type: 'button', class: 'btn btn-secondary btn-small', 'data-action': 'deliveries', 'aria-label': `Show the deliveries to ${h.url}`, text: 'Deliveries' }),
        h.status === 'active' ? null : el('button', { type: 'button', class: 'btn btn-secondary btn-small', 'data-action': 'enable', 'aria-label': `Enable ${h.url}`, text: 'Enable' }),
        el('button', { type: 'button', class: 'btn btn-danger btn-small', 'data-action': 'delete', 'aria-label': `Delete endpoint ${h.url}`, text: 'Delete' }),
      ),
    ));
  }
}

async function loadDeliveries(id) {
  const hook = state.webhooks.find((h) => h.id === id);
  if (!hook) return;
  state.deliveriesOf = id;
  const res = await api('GET', `/portal/api/webhooks/${encodeURIComponent(id)}/deliveries?limit=20`);
  const rows = $('#delivery-rows');
  rows.textContent = '';
  const data = res.data || [];
  $('#deliveries').hidden = false;
  $('#deliveries-title').textContent = `Recent deliveries to ${hook.url}`;
  $('#deliveries-empty').hidden = data.length > 0;
  $('#deliveries-table').hidden = data.length === 0;
  for (const d of data) {
    rows.append(el('tr', { 'data-delivery-id': d.id },
      el('td', {}, el('code', { text: d.eventType }), el('br'), el('small', { class: 'muted', text: dateTimeFmt.format(new Date(d.createdAt)) })),
      el('td', {}, el('span', { class: `badge badge-${d.status}`, text: d.status })),
      el('td', { text: d.responseStatus ? String(d.responseStatus) : (d.lastError ? 'no answer' : '–'), title: d.lastError || '' }),
      el('td', { text: d.latencyMs != null ? `${numFmt.format(d.latencyMs)} ms` : '–' }),
      el('td', { text: String(d.attempts) }),
      el('td', { text: d.nextAttemptAt ? dateTimeFmt.format(new Date(d.nextAttemptAt)) : '–' }),
      el('td', {}, el('button', { type: 'button', class: 'btn btn-secondary btn-small', 'data-action': 'redeliver', 'aria-label': `Send ${d.eventType} again`, text: 'Redeliver' })),
    ));
  }
}

function revealSecret(secret) {
  $('#new-secret-value').textContent = secret;
  const box = $('#new-secret');
  box.hidden = false;
  box.focus();
}

function setupWebhooks() {
  const box = $('#webhooks-error');
  const fail = (err) => { if (err.status !== 401) showFormError(box, err); };
  $('#webhooks').addEventListener('click', async (e) => {
    const btn = e.target.closest('button[data-action]');
    if (!btn) return;
    const id = btn.closest('[data-webhook-id]').dataset.webhookId;
    const hook = state.webhooks.find((h) => h.id === id);
    if (!hook) return;
    box.hidden = true;
    const path = `/portal/api/webhooks/${encodeURIComponent(id)}`;
    try {
      if (btn.dataset.action === 'test') {
        await api('POST', `${path}/test`);
        toast('Test event queued; it shows in the deliveries in a moment.');
        await loadDeliveries(id);
        // The delivery is sent within a second or so; show its outcome.
        setTimeout(() => { if (state.deliveriesOf === id) loadDeliveries(id).catch(fail); }, 1500);
      } else if (btn.dataset.action === 'deliveries') {
        await loadDeliveries(id);
        $('#deliveries-title').focus();
      } else if (btn.dataset.action === 'enable') {
        await api('PATCH', path, { enabled: true });
        toast('Endpoint enabled.');
        await loadWebhooks();
      } else if (btn.dataset.action === 'delete') {
        const yes = await confirmDialog({
          title: 'Delete this endpoint?',
          body: `${hook.url} will receive no more events, and deliveries not yet sent are dropped.`,
          ok: 'Delete endpoint',
          danger: true,
        });
        if (!yes) { btn.focus(); return; }
        await api('DELETE', path);
        if (state.deliveriesOf === id) { state.deliveriesOf = null; $('#deliveries').hidden = true; }
        toast('Endpoint deleted.');
        await loadWebhooks();
        $('#webhooks-title').focus();
      }
    } catch (err) {
      fail(err);
    }
  });
  $('#delivery-rows').addEventListener('click', async (e) => {
    const btn = e.target.closest('button[data-action=redeliver]');
    if (!btn) return;
    try {
      await api('POST', `/portal/api/webhooks/deliveries/${encodeURIComponent(btn.closest('tr').dataset.deliveryId)}/redeliver`);
      toast('Delivery queued again, with the same webhook-id.');
      await loadDeliveries(state.deliveriesOf);
    } catch (err) {
      fail(err);
    }
  });
  $('#deliveries-refresh').addEventListener('click', () => loadDeliveries(state.deliveriesOf).catch(fail));
  $('#copy-secret').addEventListener('click', (e) => copyText($('#new-secret-value').textContent, e.currentTarget));
  $('#dismiss-secret').addEventListener('click', () => {
    $('#new-secret-value').textContent = '';
    $('#new-secret').hidden = true;
    $('#webhooks-title').focus();
  });

  const form = $('#webhook-form');
  liveRevalidate(form, ['url']);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    form.dataset.tried = '1';
    clearErrors(form);
    if (!validate(form, ['url'])) return;
    const body = { url: form.elements.url.value.trim(), mode: form.elements.mode.value };
    $('button[type=submit]', form).dataset.busy = 'Adding…';
    await busy(form, async () => {
      try {
        const created = await api('POST', '/portal/api/webhooks', body);
        form.elements.url.value = '';
        delete form.dataset.tried;
        await loadWebhooks();
        revealSecret(created.secret);
      } catch (err) {
        if (err.status !== 401) serverErrors(form, err);
      }
    });
  });
}

// ---- start ----------------------------------------------------------------

async function boot() {
  setupAuth();
  setupKeys();
  setupReveal();
  setupUsage();
  setupProperties();
  setupWebhooks();
  setupApps();
  // GET /portal/session answers 200 signed in or not: opening the page
  // signed out makes no failed request (browsers log those as errors).
  try {
    const session = await api('GET', '/portal/session');
    if (session.signedIn) await showApp(session.developer);
    else showAuth('signup');
  } catch (err) {
    $('#boot').textContent = `The portal could not start: ${describe(err)}`;
  }
}

boot();
