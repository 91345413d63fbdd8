// Backup (download the config file and data directory as a tar.gz) and restore; and the raw config file.
import { h } from './dom.js';

export async function backupView(app) {
  const file = h('input', { type: 'file', id: 'restore-file', accept: '.tar.gz,.tgz,application/gzip', 'aria-describedby': 'restore-errors' });
  const errors = h('div', { class: 'form-errors', id: 'restore-errors', role: 'alert' });
  const restore = h('button', { type: 'submit', class: 'danger', id: 'restore' }, 'Restore…');

  async function submit(e) {
    e.preventDefault();
    errors.replaceChildren();
    const chosen = file.files[0];
    if (!chosen) { errors.append(h('p', null, 'Choose a backup file first.')); file.focus(); return; }
    if (!await app.confirm('Restore this backup?', `${chosen.name} replaces the config file and the data directory's `
      + 'files (the current config file is kept as a numbered backup), and Usher reloads.', 'Restore')) return;
    restore.disabled = true;
    try {
      if (!app.version) app.setVersion((await app.api.sites()).version);
      const res = await app.api.restore(chosen, app.version);
      app.setVersion(res && res.version);
      app.say(`Restored ${chosen.name}.`);
      file.value = '';
    } catch (err) {
      errors.append(h('p', null, err.status === 412
        ? 'The config file changed on disk since you loaded it; nothing was restored. Try again.' : err.message));
      for (const x of err.errors) errors.append(h('p', null, x.field ? `${x.field}: ${x.message}` : x.message));
      if (err.status === 412) app.setVersion(err.version);
    } finally {
      restore.disabled = false;
    }
  }

  const element = h('section', { 'aria-labelledby': 'backup-title' },
    h('h1', { id: 'backup-title' }, 'Backup and restore'),
    h('div', { class: 'card' }, h('h2', null, 'Download a backup'),
      h('p', null, 'One .tar.gz with the config file and the data directory (certificates, keys, the local CA, ACME accounts). '
        + 'It holds private keys: keep it somewhere safe.'),
      h('a', { class: 'button', href: '/api/backup', download: '', id: 'backup-download' }, 'Download backup')),
    h('form', { class: 'card', onsubmit: submit }, h('h2', null, 'Restore'),
      h('p', null, 'Usher checks the archive first and changes nothing if its config is invalid.'),
      h('div', { class: 'field' }, h('label', { for: 'restore-file' }, 'Backup file'), file),
      errors, h('div', { class: 'actions' }, restore)));
  return { element };
}

export async function configView(app) {
  try {
    const data = await app.api.config();
    app.setVersion(data.version);
    return {
      element: h('section', { 'aria-labelledby': 'config-title' },
        h('h1', { id: 'config-title' }, 'Config file'),
        h('p', { class: 'muted' }, h('code', null, data.path), ` · version ${data.version.slice(0, 8)} · read-only here; `
          + 'Usher reloads it when you edit and save it by hand.'),
        h('pre', { class: 'yaml', tabindex: '0' }, data.text)),
    };
  } catch (err) {
    return { element: h('p', { class: 'banner error', role: 'alert' }, `Cannot load the config file: ${err.message}`) };
  }
}
