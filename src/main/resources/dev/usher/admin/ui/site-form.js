// Add or edit a site. The server validates; its errors are shown under the field whose path they name.
import { h } from './dom.js';
import { check, errorFor, field, select } from './form-fields.js';
import { selfHostingPart } from './site-selfhost.js';

const TLS = [['auto', 'auto (local CA or ACME, by name)'], ['acme', 'acme (a public CA)'], ['internal', 'internal (local CA)'],
  ['off', 'off (plain HTTP)'], ['files', 'files (my own certificate)']];
const POLICIES = [['round_robin', 'round robin (in turn)'], ['least_conn', 'least connections'],
  ['first', 'first healthy (failover)'], ['ip_hash', 'client IP hash (sticky)']];

function readOnly(name, yaml) {
  return {
    element: h('section', { 'aria-labelledby': 'form-title' },
      h('div', { class: 'heading' }, h('h1', { id: 'form-title' }, name), h('a', { class: 'button secondary', href: '#/' }, 'Back to sites')),
      h('p', { class: 'muted' }, 'This site uses options the form does not cover, so it is shown read-only, as it is in the '
        + 'config file. Edit the file by hand to change it (Usher reloads it on save), or delete the site from the list.'),
      h('pre', { class: 'yaml', id: 'site-yaml', tabindex: '0' }, yaml || '')),
  };
}

export async function siteFormView(app, originalName) {
  let version;
  let site = {};
  let yaml = '';
  try {
    const [list, one] = await Promise.all([app.api.sites(), originalName ? app.api.site(originalName) : null]);
    version = one ? one.version : list.version;
    if (one) {
      const status = (list.sites || []).find(s => s.name === originalName);
      yaml = one.yaml;
      if (!one.site || one.editable === false || (status && status.editable === false)) return readOnly(originalName, yaml);
      site = one.site;
    }
  } catch (err) {
    const text = err.status === 404 ? `There is no site named ${originalName}.` : `Cannot load the site: ${err.message}`;
    return { element: h('section', null, h('p', { class: 'banner error', role: 'alert' }, text), h('a', { href: '#/' }, 'Back to sites')) };
  }
  app.setVersion(version);

  const tlsValue = typeof site.tls === 'object' && site.tls ? 'files' : (site.tls || 'auto');
  const inputs = {
    name: h('input', { id: 'name', name: 'name', required: true, autocomplete: 'off', spellcheck: 'false', value: site.name || '',
      placeholder: 'app.example.com' }),
    tls: select('tls', TLS, tlsValue),
    cert: h('input', { id: 'tls-cert', name: 'tls.cert', value: (site.tls && site.tls.cert) || '', placeholder: '/etc/ssl/app.pem' }),
    key: h('input', { id: 'tls-key', name: 'tls.key', value: (site.tls && site.tls.key) || '', placeholder: '/etc/ssl/app.key' }),
    policy: select('policy', POLICIES, site.policy || 'round_robin'),
    gzip: h('input', { type: 'checkbox', id: 'gzip', name: 'gzip', checked: site.gzip !== false }),
    maxBody: h('input', { id: 'max_body', name: 'max_body', value: site.max_body || '', placeholder: 'e.g. 100MiB', spellcheck: 'false' }),
    security: h('input', { type: 'checkbox', id: 'security_headers', name: 'security_headers', checked: site.security_headers === true }),
    health: h('input', { id: 'health_path', name: 'health_path', value: site.health_path || '', placeholder: '/healthz', spellcheck: 'false' }),
    skipVerify: h('input', { type: 'checkbox', id: 'insecure_skip_verify', name: 'insecure_skip_verify', checked: site.insecure_skip_verify === true }),
  };

  const rows = h('ol', { class: 'upstream-rows', id: 'upstreams' });
  const upstreamsError = errorFor('upstreams');
  function renumber() {
    [...rows.children].forEach((li, i) => {
      const input = li.querySelector('input');
      const err = li.querySelector('.field-error');
      const label = li.querySelector('label');
      input.id = `upstream-${i}`;
      label.htmlFor = input.id;
      label.textContent = `Upstream ${i + 1}`;
      err.id = `err-upstreams-${i}`;
      err.dataset.errorFor = `upstreams[${i}]`;
      input.setAttribute('aria-describedby', `${err.id} ${upstreamsError.id}`);
      const remove = li.querySelector('button');
      remove.setAttribute('aria-label', `Remove upstream ${i + 1}`);
      remove.disabled = rows.children.length === 1;
    });
  }
  function addRow(value = '', focus = false) {
    const input = h('input', { name: 'upstream', value, placeholder: 'app:8080', autocomplete: 'off', spellcheck: 'false' });
    const li = h('li', { class: 'upstream-row' }, h('label', { class: 'vh' }), input,
      h('button', { type: 'button', class: 'secondary icon', onclick: () => {
        const next = li.nextElementSibling || li.previousElementSibling;
        li.remove();
        renumber();
        next?.querySelector('input').focus();
      } }, 'Remove'), h('p', { class: 'field-error' }));
    rows.append(li);
    renumber();
    if (focus) input.focus();
  }
  (site.upstreams && site.upstreams.length ? site.upstreams : ['']).forEach(u => addRow(u));

  // Paths: a pattern, its upstream and the strip flag per row; the longest matching pattern wins, not the order.
  const pathRows = h('ol', { class: 'path-rows', id: 'paths' });
  const pathsError = errorFor('paths');
  function renumberPaths() {
    [...pathRows.children].forEach((li, i) => {
      const [pattern, upstream, strip] = li.querySelectorAll('input');
      const [patternLabel, upstreamLabel] = li.querySelectorAll('label');
      const [patternErr, upstreamErr] = li.querySelectorAll('.field-error');
      pattern.id = `path-${i}`;
      upstream.id = `path-${i}-to`;
      strip.id = `path-${i}-strip`;
      patternLabel.htmlFor = pattern.id;
      upstreamLabel.htmlFor = upstream.id;
      patternLabel.textContent = `Path ${i + 1}`;
      upstreamLabel.textContent = `Upstream of path ${i + 1}`;
      strip.setAttribute('aria-label', `Strip the prefix of path ${i + 1}`);
      patternErr.id = `err-paths-${i}-path`;
      patternErr.dataset.errorFor = `paths[${i}].path`;
      upstreamErr.id = `err-paths-${i}-to`;
      upstreamErr.dataset.errorFor = `paths[${i}].to`;
      pattern.setAttribute('aria-describedby', `${patternErr.id} ${pathsError.id}`);
      upstream.setAttribute('aria-describedby', `${upstreamErr.id} ${pathsError.id}`);
      li.querySelector('button').setAttribute('aria-label', `Remove path ${i + 1}`);
    });
  }
  function addPathRow(row = {}, focus = false) {
    const pattern = h('input', { name: 'path', value: row.path || '', placeholder: '/api/', autocomplete: 'off', spellcheck: 'false' });
    const upstream = h('input', { name: 'path-to', value: row.to || '', placeholder: 'api:8080', autocomplete: 'off', spellcheck: 'false' });
    const strip = h('input', { type: 'checkbox', name: 'path-strip', checked: row.strip_prefix === true });
    const li = h('li', { class: 'path-row' },
      h('label', { class: 'vh' }), pattern, h('label', { class: 'vh' }), upstream,
      h('label', { class: 'check' }, strip, h('span', { 'aria-hidden': 'true' }, 'strip prefix')),
      h('button', { type: 'button', class: 'secondary icon', onclick: () => {
        const next = li.nextElementSibling || li.previousElementSibling;
        li.remove();
        renumberPaths();
        (next?.querySelector('input') || addPath).focus();
      } }, 'Remove'),
      h('p', { class: 'field-error' }), h('p', { class: 'field-error' }));
    pathRows.append(li);
    renumberPaths();
    if (focus) pattern.focus();
  }
  (site.paths || []).forEach(p => addPathRow(p));
  const addPath = h('button', { type: 'button', class: 'secondary', id: 'add-path', onclick: () => addPathRow({}, true) }, 'Add path');

  const filesFields = h('div', { class: 'files', id: 'tls-files' },
    field('Certificate file (PEM chain, leaf first)', inputs.cert, 'tls.cert'),
    field('Key file (PEM)', inputs.key, 'tls.key'));
  const showFiles = () => { filesFields.hidden = inputs.tls.value !== 'files'; };
  inputs.tls.addEventListener('change', showFiles);
  showFiles();

  const upstreamsPart = h('fieldset', { class: 'field', id: 'upstreams-part' }, h('legend', null, 'Upstreams'),
    h('p', { class: 'hint' }, 'Backends as host:port, e.g. app:8080 or 127.0.0.1:3000; https://host:port for a backend that '
      + 'speaks HTTPS (Proxmox, Portainer…), h2c://host:port for cleartext HTTP/2 (gRPC).'), rows, upstreamsError,
    h('button', { type: 'button', class: 'secondary', id: 'add-upstream', onclick: () => addRow('', true) }, 'Add upstream'));
  const self = selfHostingPart(site, upstreamsPart);

  const topErrors = h('div', { class: 'form-errors', id: 'form-errors', role: 'alert', tabindex: '-1' });
  const save = h('button', { type: 'submit', id: 'save' }, originalName ? 'Save changes' : 'Add site');
  const title = originalName ? `Edit ${originalName}` : 'Add a site';

  const form = h('form', { class: 'card site-form', id: 'site-form', novalidate: true, onsubmit: submit },
    topErrors,
    field('Name', inputs.name, 'name', 'The host name clients use, e.g. app.example.com; TLS off serves it as plain HTTP.'),
    self.serves,
    upstreamsPart,
    h('fieldset', { class: 'field' }, h('legend', null, 'Paths'),
      h('p', { class: 'hint' }, 'Send some paths to other backends: /api/ (a prefix), /exact (one path) or /files* (a '
        + 'star suffix). The longest match wins, whatever the order. Strip the prefix to send /api/x as /x.'),
      pathRows, pathsError, addPath),
    field('TLS certificate', inputs.tls, 'tls'),
    filesFields,
    h('details', { class: 'more', open: Boolean((site.policy && site.policy !== 'round_robin') || site.gzip === false || site.max_body
      || site.security_headers === true || site.health_path || site.insecure_skip_verify === true) },
      h('summary', null, 'More options'),
      field('Load balancing', inputs.policy, 'policy'),
      field('Largest request body', inputs.maxBody, 'max_body', 'Empty = the global limit. Sizes like 10MiB, 1GiB.'),
      field('Health check path', inputs.health, 'health_path', 'Empty = no active checks. Starts with /.'),
      check('Compress responses (gzip/zstd)', inputs.gzip, 'gzip'),
      check('Security headers', inputs.security, 'security_headers', 'HSTS, nosniff, frame and referrer policy'),
      check('Do not verify the backends\' certificates', inputs.skipVerify, 'insecure_skip_verify',
        'for https:// backends with a self-signed certificate; anyone on the way could pose as them')),
    self.options,
    yaml && h('details', { class: 'more' }, h('summary', null, 'As it is in the file now'), h('pre', { class: 'yaml', id: 'site-yaml' }, yaml)),
    h('div', { class: 'actions' }, h('a', { class: 'button secondary', href: '#/' }, 'Cancel'), save));

  /** The form as SiteForm JSON, leaving defaults out so the API writes the shortest YAML. */
  function collect() {
    const rowOf = [];
    const upstreams = [];
    [...rows.querySelectorAll('input')].forEach((input, i) => {
      const v = input.value.trim();
      if (v) { rowOf.push(i); upstreams.push(v); }
    });
    const json = { name: inputs.name.value.trim(), upstreams };
    const tls = inputs.tls.value;
    if (tls === 'files') json.tls = { cert: inputs.cert.value.trim(), key: inputs.key.value.trim() };
    else if (tls !== 'auto') json.tls = tls;
    if (inputs.policy.value !== 'round_robin') json.policy = inputs.policy.value;
    if (!inputs.gzip.checked) json.gzip = false;
    if (inputs.security.checked) json.security_headers = true;
    if (inputs.maxBody.value.trim()) json.max_body = inputs.maxBody.value.trim();
    if (inputs.health.value.trim()) json.health_path = inputs.health.value.trim();
    if (inputs.skipVerify.checked) json.insecure_skip_verify = true;
    const paths = [...pathRows.children].map(li => {
      const [pattern, upstream, strip] = li.querySelectorAll('input');
      const path = { path: pattern.value.trim(), to: upstream.value.trim() };
      if (strip.checked) path.strip_prefix = true;
      return path;
    });
    if (paths.length) json.paths = paths;
    self.collect(json);
    return { json, rowOf };
  }

  function clearErrors() {
    topErrors.replaceChildren();
    for (const el of form.querySelectorAll('.field-error')) el.textContent = '';
    for (const el of form.querySelectorAll('[aria-invalid]')) el.removeAttribute('aria-invalid');
  }

  /** The error element for a server path: exact, else its parent path ("upstreams[3]" → "upstreams"), else none. */
  function errorElement(path, rowOf) {
    let p = path.replace(/^upstreams\[(\d+)\]/, (m, i) => `upstreams[${rowOf[+i] ?? i}]`);
    while (p) {
      const el = form.querySelector(`[data-error-for="${CSS.escape(p)}"]`);
      if (el) return el;
      const parent = p.replace(/(\.[^.[\]]+|\[\d+\])$/, '');
      p = parent === p ? '' : parent;
    }
    return null;
  }

  function showErrors(errors, rowOf) {
    let first = null;
    for (const e of errors) {
      const el = e.field ? errorElement(e.field, rowOf) : null;
      if (el) {
        el.textContent = el.textContent ? `${el.textContent} ${e.message}` : e.message;
        const input = form.querySelector(`[aria-describedby~="${el.id}"]`);
        input?.setAttribute('aria-invalid', 'true');
        first = first || input;
      } else {
        topErrors.append(h('p', null, e.field ? `${e.field}: ${e.message}` : e.message));
      }
    }
    if (topErrors.childElementCount) topErrors.focus(); else first?.focus();
  }

  function staleBanner() {
    const reload = h('button', { type: 'button', class: 'secondary', id: 'reload-data', onclick: async () => {
      try {
        const fresh = originalName ? await app.api.site(originalName) : await app.api.sites();
        version = fresh.version;
        app.setVersion(version);
        if (fresh.yaml != null) form.querySelector('#site-yaml')?.replaceChildren(fresh.yaml);
        topErrors.replaceChildren(h('p', { class: 'ok' }, `Loaded the current file (version ${version.slice(0, 8)}). `
          + 'Your input is kept: check it and save again.'));
        save.focus();
      } catch (err) {
        topErrors.replaceChildren(h('p', null, err.status === 404
          ? `${originalName} is no longer in the config file.` : `Cannot reload: ${err.message}`));
      }
    } }, 'Reload data');
    topErrors.replaceChildren(h('p', { class: 'stale' },
      'The config file changed on disk since you loaded it, so nothing was saved. Reload the data to save on top of '
      + 'the new file; your input stays in the form. ', reload));
    topErrors.focus();
  }

  async function submit(e) {
    e.preventDefault();
    clearErrors();
    const { json, rowOf } = collect();
    if (!json.name) { showErrors([{ field: 'name', message: 'A site needs a name.' }], rowOf); return; }
    if (self.servesFolder() && !json.root) { showErrors([{ field: 'root', message: 'Give the folder to serve.' }], rowOf); return; }
    if (!self.servesFolder() && !json.upstreams.length) {
      showErrors([{ field: 'upstreams', message: 'Give at least one upstream.' }], rowOf);
      return;
    }
    save.disabled = true;
    save.setAttribute('aria-busy', 'true');
    try {
      const res = originalName ? await app.api.saveSite(originalName, json, version) : await app.api.addSite(json, version);
      app.setVersion(res && res.version);
      app.flash(`${originalName ? 'Saved' : 'Added'} ${json.name}. The config file is written and Usher reloaded it.`);
      app.go('#/');
    } catch (err) {
      if (err.status === 412) staleBanner();
      else if (err.errors.length) showErrors(err.errors, rowOf);
      else if (err.status === 409) showErrors([{ field: 'name', message: err.message }], rowOf);
      else showErrors([{ field: null, message: err.message }], rowOf);
    } finally {
      save.disabled = false;
      save.removeAttribute('aria-busy');
    }
  }

  return {
    element: h('section', { 'aria-labelledby': 'form-title' },
      h('div', { class: 'heading' }, h('h1', { id: 'form-title' }, title)), form),
    focus: () => inputs.name.focus(),
  };
}
