// Usher admin UI: session and login, a hash router over the screens, the banner, the footer and polling.
import { Api } from './api.js';
import { h } from './dom.js';
import { sitesView } from './sites.js';
import { siteFormView } from './site-form.js';
import { certificatesView } from './certificates.js';
import { streamsView } from './streams.js';
import { fleetView } from './fleet.js';
import { backupView, configView } from './backup.js';

const api = new Api();
const main = document.getElementById('main');
const banner = document.getElementById('banner');
const POLL_MS = 10_000;

/** What every screen shares: the API, the config version last read, messages and the confirm dialog. */
const app = {
  api,
  version: null,
  session: null,
  setVersion(version) {
    if (!version) return;
    app.version = version;
    document.getElementById('foot-version').textContent = `version ${version.slice(0, 8)}`;
  },
  /** Shows a message above the screen; kind: ok | error | warn; action: {label, run}. */
  say(text, kind = 'ok', action) {
    banner.replaceChildren(h('div', { class: `banner ${kind}`, role: kind === 'error' ? 'alert' : 'status' },
      h('span', null, text),
      action && h('button', { type: 'button', class: 'secondary', onclick: action.run }, action.label),
      h('button', { type: 'button', class: 'close', 'aria-label': 'Dismiss message', onclick: () => app.clear() }, '×')));
  },
  clear() { banner.replaceChildren(); },
  /** A message for the next screen (shown after navigating). */
  flash(text) { app.pending = text; },
  /** Opens the confirmation dialog; resolves true when the user confirms. */
  confirm(title, text, okLabel) {
    const dialog = document.getElementById('confirm');
    document.getElementById('confirm-title').textContent = title;
    document.getElementById('confirm-text').textContent = text;
    document.getElementById('confirm-ok').textContent = okLabel;
    dialog.returnValue = '';
    dialog.showModal();
    document.getElementById('confirm-cancel').focus();
    return new Promise(resolve => dialog.addEventListener('close', () => resolve(dialog.returnValue === 'ok'), { once: true }));
  },
  go(hash) { if (location.hash === hash) route(); else location.hash = hash; },
};

const routes = [
  [/^#?\/?$/, 'sites', () => sitesView(app)],
  [/^#\/new$/, 'sites', () => siteFormView(app, null)],
  [/^#\/site\/(.+)$/, 'sites', m => siteFormView(app, decodeURIComponent(m[1]))],
  [/^#\/certificates$/, 'certificates', () => certificatesView(app)],
  [/^#\/streams$/, 'streams', () => streamsView(app)],
  [/^#\/fleet$/, 'fleet', () => fleetView(app)],
  [/^#\/backup$/, 'backup', () => backupView(app)],
  [/^#\/config$/, 'config', () => configView(app)],
];

let current = null; // the shown screen: {element, poll?(), refresh?(), focus?()}

let routing = 0; // the latest navigation wins when screens load out of order

async function route() {
  if (!app.session || (app.session.login_required && !app.session.logged_in)) return;
  const hash = location.hash;
  let [, nav, make] = routes[0];
  let match = null;
  for (const [re, n, m] of routes) {
    match = hash.match(re);
    if (match) { nav = n; make = m; break; }
  }
  for (const a of document.querySelectorAll('[data-nav]')) {
    if (a.dataset.nav === nav) a.setAttribute('aria-current', 'page'); else a.removeAttribute('aria-current');
  }
  document.title = `${nav === 'sites' ? 'Sites' : nav[0].toUpperCase() + nav.slice(1)} · Usher`;
  const token = ++routing;
  current = null;
  app.clear();
  if (app.pending) { app.say(app.pending); app.pending = null; }
  const screen = await make(match);
  if (token !== routing) return;
  main.replaceChildren(screen.element);
  current = screen;
  screen.focus?.();
}

function showLogin(message) {
  current = null;
  routing++; // a screen still loading must not replace the login form
  app.clear();
  document.getElementById('nav').hidden = true;
  document.getElementById('top-actions').hidden = true;
  const error = h('p', { class: 'field-error', id: 'login-error', role: 'alert' }, message || '');
  const input = h('input', { type: 'password', id: 'password', name: 'password', autocomplete: 'current-password',
    required: true, 'aria-describedby': 'login-error' });
  const form = h('form', { class: 'card login', onsubmit: async e => {
    e.preventDefault();
    error.textContent = '';
    try {
      const res = await api.login(input.value);
      api.csrf = res.csrf;
      // the session answer names the config file only once logged in
      app.session = { ...(await api.session()), logged_in: true, csrf: res.csrf };
      enter();
    } catch (err) {
      error.textContent = err.status === 401 ? 'Wrong password.' : err.message;
      input.select();
    }
  } },
  h('h1', null, 'Log in to Usher'),
  h('p', { class: 'muted' }, 'This admin endpoint is password protected.'),
  h('div', { class: 'field' }, h('label', { for: 'password' }, 'Password'), input, error),
  h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Log in')));
  main.replaceChildren(form);
  input.focus();
}

function enter() {
  document.getElementById('nav').hidden = false;
  document.getElementById('top-actions').hidden = false;
  document.getElementById('logout').hidden = !app.session.login_required;
  document.getElementById('foot-file').textContent = app.session.config_file || '';
  route();
}

async function start() {
  try {
    app.session = await api.session();
  } catch (err) {
    main.replaceChildren(h('p', { class: 'banner error', role: 'alert' }, `Cannot load the session: ${err.message}`));
    return;
  }
  api.csrf = app.session.csrf;
  if (app.session.login_required && !app.session.logged_in) showLogin();
  else enter();
}

api.onUnauthorized = () => {
  app.session = { ...app.session, logged_in: false, login_required: true };
  showLogin('Your session ended; log in again.');
};

document.getElementById('reload').addEventListener('click', async () => {
  try {
    const res = await api.reload();
    app.say(res && res.changes ? `Reloaded: ${res.changes}` : 'Reloaded the config file.');
    current?.refresh?.();
  } catch (err) {
    const details = err.errors.map(e => e.message).join('; ');
    app.say(`Reload failed: ${err.message}${details ? ` — ${details}` : ''}`, 'error');
  }
});

document.getElementById('logout').addEventListener('click', async () => {
  try { await api.logout(); } catch { /* the session is gone either way */ }
  app.session = { ...app.session, logged_in: false };
  api.csrf = null;
  location.hash = '#/';
  showLogin('Logged out.');
});

window.addEventListener('hashchange', route);
// Poll the shown screen (the site list) while the tab is visible; refresh at once when it becomes visible again.
setInterval(() => { if (document.visibilityState === 'visible') current?.poll?.(); }, POLL_MS);
document.addEventListener('visibilitychange', () => { if (document.visibilityState === 'visible') current?.poll?.(); });

start();
