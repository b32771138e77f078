// The admin console of the guide API: the queue of expert applications
// (with their verification documents), the reports people filed and the
// moderation log. Only the admins the deployment names (ADMIN_EMAILS) can
// use it: every call below is refused to anyone else, and to API keys.
//
// The admin signs in with their password on this page; the token lives
// only in this page's memory and goes only to this origin. Documents are
// fetched with it and handed to the browser as a download: no document
// has a URL anyone could open.

import { request } from './api.js';

const $ = (sel) => document.querySelector(sel);
let token = null;

function api(method, path, body) {
  return request(method, path, body, { credentials: 'omit', headers: token ? { Authorization: `Bearer ${token}` } : {} });
}

function showError(box, err) {
  box.textContent = err ? err.message : '';
  box.hidden = !err;
}

// consoleError shows a failure of the console as a whole; a 401 or 403
// (the token expired, the account is no longer an admin) signs out.
function consoleError(err) {
  if (err && (err.status === 401 || err.status === 403)) {
    signOut(err.status === 403 ? 'This account is not an admin of this deployment.' : 'Your session ended; sign in again.');
    return;
  }
  showError($('#console-error'), err);
}

function when(iso) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso || '';
  return new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit' }).format(d);
}

function el(tag, props = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === 'class') e.className = v;
    else if (k === 'dataset') Object.assign(e.dataset, v);
    else if (k in e) e[k] = v;
    else e.setAttribute(k, v);
  }
  e.append(...children.filter((c) => c !== null && c !== undefined));
  return e;
}

// ---- sign in ---------------------------------------------------------------

function showView(id) {
  for (const v of ['view-signin', 'view-console']) $(`#${v}`).hidden = v !== id;
  $('#who').hidden = id !== 'view-console';
}

function signOut(message) {
  token = null;
  showView('view-signin');
  showError($('#signin-form .form-error'), message ? new Error(message) : null);
  $('#signin-title').focus();
}

$('#signout').addEventListener('click', () => signOut(''));

$('#signin-form').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  const form = ev.currentTarget;
  const box = form.querySelector('.form-error');
  const button = form.querySelector('button[type=submit]');
  const email = form.email.value.trim();
  const password = form.password.value;
  if (!email || password.length < 8) {
    showError(box, new Error('Enter your e-mail and your password (at least 8 characters).'));
    return;
  }
  button.disabled = true;
  showError(box, null);
  try {
    const res = await api('POST', '/api/v1/auth/login', { email, password });
    token = res.token;
    // The audit log answers admins only: the check that this account is one.
    await api('GET', '/api/v1/admin/audit?pageSize=1');
    form.password.value = '';
    $('#who-name').textContent = (res.user && (res.user.name || res.user.email)) || email;
    showView('view-console');
    selectTab('applications');
  } catch (err) {
    token = null;
    if (err.status === 401) showError(box, new Error('The e-mail or the password is not right.'));
    else if (err.status === 403) showError(box, new Error('This account is not an admin of this deployment.'));
    else showError(box, err);
  } finally {
    button.disabled = false;
  }
});

// ---- tabs ------------------------------------------------------------------

const loaders = { applications: () => loadApplications(true), reports: () => loadReports(true), log: () => loadLog(true) };

function selectTab(name) {
  for (const t of Object.keys(loaders)) {
    const tab = $(`#tab-${t}`);
    tab.setAttribute('aria-selected', String(t === name));
    $(`#panel-${t}`).hidden = t !== name;
  }
  showError($('#console-error'), null);
  loaders[name]();
}

for (const t of Object.keys(loaders)) $(`#tab-${t}`).addEventListener('click', () => selectTab(t));

// A paged list: page n of path, appended to what is shown.
function pager(path, onPage, more) {
  let page = 0;
  return async (reset) => {
    page = reset ? 1 : page + 1;
    const sep = path().includes('?') ? '&' : '?';
    const res = await api('GET', `${path()}${sep}page=${page}&pageSize=20`);
    onPage(res.data, res.meta, reset);
    $(more).hidden = !res.meta.hasMore;
  };
}

// ---- applications ----------------------------------------------------------

const STATUS_LABELS = { pending: 'Pending', changes_requested: 'Changes requested', approved: 'Approved', rejected: 'Rejected' };
let current = null; // the application shown in full

const pageApplications = pager(() => `/api/v1/admin/expert-applications?status=${encodeURIComponent($('#app-status').value)}`, (apps, meta, reset) => {
  const list = $('#app-list');
  if (reset) {
    list.replaceChildren();
    $('#app-detail').hidden = true;
  }
  $('#app-count').textContent = `${meta.total} application${meta.total === 1 ? '' : 's'}`;
  for (const a of apps) {
    const who = (a.applicant && (a.applicant.name || a.applicant.email)) || a.profile.name;
    const button = el('button', { type: 'button', class: 'item', dataset: { id: a.id } },
      el('strong', {}, a.profile.name || who), el('span', { class: 'muted' }, ` @${a.profile.handle}`),
      el('span', { class: 'sub' }, `${a.profile.location.city || ''} ${a.profile.location.countryCode || ''} · applied ${when(a.createdAt)}`));
    button.addEventListener('click', () => showApplication(a.id));
    list.append(el('li', {}, button));
  }
  if (reset && apps.length === 0) list.append(el('li', { class: 'empty muted' }, 'Nothing here.'));
}, '#app-more');

async function loadApplications(reset) {
  try { await pageApplications(reset); } catch (err) { consoleError(err); }
}
$('#app-status').addEventListener('change', () => loadApplications(true));
$('#app-more').addEventListener('click', () => loadApplications(false));

function fact(dl, term, value) {
  if (value === undefined || value === null || value === '') return;
  dl.append(el('dt', {}, term), el('dd', {}, String(value)));
}

async function showApplication(id) {
  try {
    const { data: a } = await api('GET', `/api/v1/admin/expert-applications/${encodeURIComponent(id)}`);
    current = a;
    const p = a.profile;
    $('#app-status-label').textContent = STATUS_LABELS[a.status] || a.status;
    $('#app-title').textContent = `${p.name} (@${p.handle})`;
    const dl = $('#app-facts');
    dl.replaceChildren();
    if (a.applicant) fact(dl, 'Applicant', [a.applicant.name, a.applicant.email].filter(Boolean).join(' · '));
    fact(dl, 'Location', `${p.location.city}, ${p.location.countryCode}`);
    fact(dl, 'Languages', (p.languages || []).join(', '));
    fact(dl, 'Specialties', (p.specialties || []).join(', '));
    fact(dl, 'Rate', p.hourlyRate != null ? `${p.hourlyRate} ${p.currency} an hour` : p.currency);
    fact(dl, 'Time zone', p.timezone);
    for (const [locale, text] of Object.entries(p.bio || {})) fact(dl, `Bio (${locale})`, text);
    for (const [site, url] of Object.entries(p.socialLinks || {})) fact(dl, site, url);
    fact(dl, 'Applied', when(a.createdAt));
    if (a.reviewerMessage) fact(dl, 'Reviewer said', a.reviewerMessage);
    if (a.documentsRemoveAt) fact(dl, 'Documents removed', when(a.documentsRemoveAt));
    $('#app-statement').textContent = a.statement || '';
    const docs = $('#app-docs');
    docs.replaceChildren();
    for (const d of a.documents || []) {
      const b = el('button', { type: 'button', class: 'btn btn-link' }, `${d.contentType} · ${Math.ceil(d.size / 1024)} KB · ${when(d.createdAt)}`);
      b.addEventListener('click', () => download(a.id, d));
      docs.append(el('li', {}, b));
    }
    if (!(a.documents || []).length) docs.append(el('li', { class: 'muted' }, 'No documents.'));
    const open = a.status === 'pending';
    $('#decide-form').hidden = !open;
    for (const part of document.querySelectorAll('#decide-form .field, #decide-form .actions')) part.hidden = false;
    $('#decide-reason').value = '';
    $('#decide-status').textContent = '';
    showError($('#decide-form .form-error'), null);
    $('#app-detail').hidden = false;
    $('#app-title').focus();
  } catch (err) {
    consoleError(err);
  }
}

// download fetches a document with the admin's token and hands it to the
// browser as a file: the response is an attachment, never shown inline.
async function download(appID, doc) {
  try {
    const res = await fetch(`/api/v1/admin/expert-applications/${encodeURIComponent(appID)}/documents/${encodeURIComponent(doc.id)}`,
      { credentials: 'omit', headers: { Authorization: `Bearer ${token}` } });
    if (!res.ok) throw Object.assign(new Error(`The document could not be read (${res.status}).`), { status: res.status });
    const url = URL.createObjectURL(await res.blob());
    const ext = doc.contentType === 'application/pdf' ? 'pdf' : (doc.contentType.split('/')[1] || 'bin');
    const a = el('a', { href: url, download: `document-${doc.id}.${ext}` });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  } catch (err) {
    consoleError(err);
  }
}

for (const b of document.querySelectorAll('#decide-form [data-decision]')) {
  b.addEventListener('click', async () => {
    const decision = b.dataset.decision;
    const reason = $('#decide-reason').value.trim();
    const box = $('#decide-form .form-error');
    if (decision !== 'approve' && !reason) {
      showError(box, new Error(decision === 'reject' ? 'Give the reason for the rejection.' : 'Say what the applicant should change.'));
      return;
    }
    const body = decision === 'reject' ? { reason } : decision === 'request-changes' ? { message: reason } : (reason ? { message: reason } : {});
    for (const x of document.querySelectorAll('#decide-form [data-decision]')) x.disabled = true;
    showError(box, null);
    try {
      const { data } = await api('POST', `/api/v1/admin/expert-applications/${encodeURIComponent(current.id)}/${decision}`, body);
      // The queue moves on; the decided application stays in view, done.
      await loadApplications(true);
      $('#app-detail').hidden = false;
      $('#app-status-label').textContent = STATUS_LABELS[data.status] || data.status;
      for (const part of document.querySelectorAll('#decide-form .field, #decide-form .actions')) part.hidden = true;
      $('#decide-status').textContent = `Done: ${STATUS_LABELS[data.status] || data.status}.`;
    } catch (err) {
      if (err.status === 401 || err.status === 403) consoleError(err);
      else showError(box, err);
    } finally {
      for (const x of document.querySelectorAll('#decide-form [data-decision]')) x.disabled = false;
    }
  });
}

// ---- reports ---------------------------------------------------------------

const pageReports = pager(() => `/api/v1/admin/reports?status=${encodeURIComponent($('#report-status').value)}`, (reports, meta, reset) => {
  const list = $('#report-list');
  if (reset) list.replaceChildren();
  $('#report-count').textContent = `${meta.total} report${meta.total === 1 ? '' : 's'}`;
  for (const r of reports) list.append(reportItem(r));
  if (reset && reports.length === 0) list.append(el('li', { class: 'empty muted' }, 'Nothing here.'));
}, '#report-more');

async function loadReports(reset) {
  try { await pageReports(reset); } catch (err) { consoleError(err); }
}
$('#report-status').addEventListener('change', () => loadReports(true));
$('#report-more').addEventListener('click', () => loadReports(false));

function reportItem(r) {
  const t = r.target || {};
  const expert = r.targetType === 'expert';
  const action = expert ? (t.moderated ? 'reinstate' : 'suspend') : (t.moderated ? 'restore' : 'hide');
  const li = el('li', { class: 'report', dataset: { id: r.id } },
    el('p', { class: 'eyebrow' }, `${r.targetType} · ${r.reason}${t.moderated ? (expert ? ' · suspended' : ' · hidden') : ''}`),
    el('p', { class: 'label' }, t.label || r.targetId),
    t.ownerHandle ? el('p', { class: 'muted' }, `@${t.ownerHandle} · ${t.openReports} open report${t.openReports === 1 ? '' : 's'}`) : null,
    r.text ? el('blockquote', {}, r.text) : null,
    el('p', { class: 'sub muted' }, `Reported by ${(r.reporter && r.reporter.name) || 'a user'} · ${when(r.createdAt)}`),
    r.resolution ? el('p', { class: 'sub' }, `${r.resolution.action} by ${r.resolution.by.name || 'an admin'} · ${when(r.resolution.at)}`) : null);
  const actions = el('div', { class: 'actions' });
  const act = el('button', { type: 'button', class: `btn ${t.moderated ? 'btn-secondary' : 'btn-danger-solid'}`, dataset: { action } }, action[0].toUpperCase() + action.slice(1));
  act.addEventListener('click', () => moderate(r, action));
  actions.append(act);
  if (r.status === 'open') {
    const dismiss = el('button', { type: 'button', class: 'btn btn-secondary', dataset: { action: 'dismiss' } }, 'Dismiss');
    dismiss.addEventListener('click', () => moderate(r, 'dismiss'));
    actions.append(dismiss);
  }
  li.append(actions);
  return li;
}

let pending = null; // { report, action } the dialog asks about

function moderate(report, action) {
  pending = { report, action };
  $('#moderate-title').textContent = `${action[0].toUpperCase() + action.slice(1)} ${action === 'dismiss' ? 'this report' : `this ${report.targetType}`}`;
  $('#moderate-what').textContent = (report.target && report.target.label) || report.targetId;
  $('#moderate-reason').value = '';
  showError($('#moderate-form .form-error'), null);
  $('#moderate').showModal();
  $('#moderate-reason').focus();
}

$('#moderate-cancel').addEventListener('click', () => $('#moderate').close());
$('#moderate-form').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  const reason = $('#moderate-reason').value.trim();
  const box = $('#moderate-form .form-error');
  if (!reason) {
    showError(box, new Error('Give a reason: it is kept in the moderation log.'));
    return;
  }
  const { report, action } = pending;
  $('#moderate-ok').disabled = true;
  try {
    if (action === 'dismiss') {
      await api('POST', `/api/v1/admin/reports/${encodeURIComponent(report.id)}/dismiss`, { reason });
    } else {
      await api('POST', '/api/v1/admin/moderation', { action, targetType: report.targetType, targetId: report.targetId, reason });
    }
    $('#moderate').close();
    await loadReports(true);
  } catch (err) {
    if (err.status === 401 || err.status === 403) { $('#moderate').close(); consoleError(err); } else showError(box, err);
  } finally {
    $('#moderate-ok').disabled = false;
  }
});

// ---- moderation log ----------------------------------------------------------

const pageLog = pager(() => '/api/v1/admin/audit', (entries, meta, reset) => {
  const rows = $('#log-rows');
  if (reset) rows.replaceChildren();
  for (const e of entries) {
    rows.append(el('tr', {},
      el('td', {}, when(e.createdAt)), el('td', {}, e.actor.name || e.actor.id), el('td', {}, e.action),
      el('td', {}, `${e.targetType} ${e.targetId}`), el('td', {}, e.reason || '')));
  }
  if (reset && entries.length === 0) rows.append(el('tr', {}, el('td', { colSpan: 5, class: 'muted' }, 'Nothing yet.')));
}, '#log-more');

async function loadLog(reset) {
  try { await pageLog(reset); } catch (err) { consoleError(err); }
}
$('#log-more').addEventListener('click', () => loadLog(false));

showView('view-signin');
