// report.html's script: draws the scenario matrix, its filters and the detail of a scenario
// from the JSON embedded in #report. Plain DOM, no framework, no network. Text from the report
// only ever reaches the page as text nodes and attribute values, never as markup.
(function () {
  'use strict';
  var root = document.documentElement;
  var report = JSON.parse(document.getElementById('report').textContent) || {};
  var scenarios = Array.isArray(report.scenarios) ? report.scenarios : [];
  var VERDICTS = ['failed', 'error', 'warning', 'expected_failure', 'skipped', 'passed'];
  var LABEL = {
    passed: '✓ passed', failed: '✗ failed', warning: '! warning', skipped: '– skipped',
    error: '⚠ error', expected_failure: '✓ expected failure', stale: 'stale baseline entry'
  };
  // Transcript entries drawn at once; the rest on demand, so thousands stay quick.
  var CHUNK = 200;
  // Messages shorter than this are shown as they are; longer ones fold.
  var SHORT = 160;

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    for (var k in attrs || {}) {
      if (attrs[k] === null || attrs[k] === undefined || attrs[k] === false) continue;
      if (k === 'text') node.textContent = String(attrs[k]);
      else if (k.slice(0, 2) === 'on') node.addEventListener(k.slice(2), attrs[k]);
      else node.setAttribute(k, attrs[k] === true ? '' : String(attrs[k]));
    }
    (children || []).forEach(function (c) {
      if (c === null || c === undefined) return;
      node.appendChild(typeof c === 'object' ? c : document.createTextNode(String(c)));
    });
    return node;
  }
  function label(v) { return LABEL[v] || String(v); }
  function str(v) { return v === null || v === undefined ? '' : String(v); }
  function transportOf(s) { return str(s.transport || report.transport); }
  function isStale(s) { return !!(s.baseline && s.baseline.status === 'stale'); }

  // ---- The model: rows are scenario ids, columns revision × transport, cells indices. ----
  var columns = [], columnIndex = {}, rows = [], rowIndex = {};
  function addColumn(revision, transport) {
    var key = revision + '\u0000' + transport;
    if (!(key in columnIndex)) {
      columnIndex[key] = columns.length;
      columns.push({ key: key, revision: revision, transport: transport });
    }
    return columnIndex[key];
  }
  var transports = [];
  scenarios.forEach(function (s) {
    var t = transportOf(s);
    if (transports.indexOf(t) < 0) transports.push(t);
  });
  if (!transports.length) transports.push(str(report.transport));
  (Array.isArray(report.revisions) ? report.revisions : []).forEach(function (r) {
    transports.forEach(function (t) { addColumn(str(r), t); });
  });
  scenarios.forEach(function (s, i) {
    var col = addColumn(str(s.revision), transportOf(s));
    var id = str(s.id);
    var row = rowIndex[id];
    if (!row) {
      row = rowIndex[id] = { id: id, name: str(s.name), level: str(s.level), tags: [], cells: {} };
      rows.push(row);
    }
    (Array.isArray(s.tags) ? s.tags : []).forEach(function (t) {
      if (row.tags.indexOf(t) < 0) row.tags.push(t);
    });
    row.cells[col] = i;
  });
  // Failing scenarios first (by the worst verdict of any of their runs), the suite's order within.
  rows.forEach(function (row, order) {
    row.order = order;
    row.worst = VERDICTS.length;
    Object.keys(row.cells).forEach(function (c) {
      var rank = VERDICTS.indexOf(scenarios[row.cells[c]].verdict);
      if (rank >= 0 && rank < row.worst) row.worst = rank;
    });
  });
  rows.sort(function (a, b) { return a.worst - b.worst || a.order - b.order; });
  var allTags = [], levels = [], present = {};
  rows.forEach(function (r) {
    r.tags.forEach(function (t) { if (allTags.indexOf(t) < 0) allTags.push(t); });
    if (r.level && levels.indexOf(r.level) < 0) levels.push(r.level);
  });
  allTags.sort();
  levels.sort(function (a, b) {
    return ['MUST', 'SHOULD', 'MAY'].indexOf(a) - ['MUST', 'SHOULD', 'MAY'].indexOf(b);
  });
  scenarios.forEach(function (s) {
    present[s.verdict] = (present[s.verdict] || 0) + 1;
    if (isStale(s)) present.stale = (present.stale || 0) + 1;
  });
  var verdictChoices = VERDICTS.filter(function (v) { return present[v]; });
  if (present.stale) verdictChoices.push('stale');
  Object.keys(present).forEach(function (v) {
    if (verdictChoices.indexOf(v) < 0) verdictChoices.push(v);
  });

  // ---- Filters, kept in the URL hash: #verdict=failed,error&level=MUST&tag=x&q=text&open=3 ----
  var state = { verdict: null, q: '', level: '', tag: '', open: null };
  var lastHash = null;
  function readHash() {
    var p = new URLSearchParams(location.hash.replace(/^#/, ''));
    var v = p.get('verdict');
    state.verdict = v ? v.split(',').filter(Boolean) : null;
    state.q = p.get('q') || '';
    state.level = p.get('level') || '';
    state.tag = p.get('tag') || '';
    var open = p.get('open');
    state.open = open !== null && /^\d+$/.test(open) && +open < scenarios.length ? +open : null;
  }
  function writeHash() {
    var parts = [];
    function put(key, value) {
      // Commas and slashes stay as they are, so a link reads as it was typed.
      parts.push(key + '=' + encodeURIComponent(value).replace(/%2C/g, ',').replace(/%2F/g, '/'));
    }
    if (state.verdict) put('verdict', state.verdict.join(','));
    if (state.q) put('q', state.q);
    if (state.level) put('level', state.level);
    if (state.tag) put('tag', state.tag);
    if (state.open !== null) put('open', String(state.open));
    var hash = parts.join('&');
    lastHash = hash;
    var url = location.href.split('#')[0] + (hash ? '#' + hash : '');
    try {
      history.replaceState(null, '', url);
    } catch (e) {
      // Some browsers refuse replaceState on file: pages; replacing the location with the
      // same page and another fragment does not reload it.
      location.replace(url);
    }
  }
  function matches(s) {
    if (!state.verdict) return true;
    return state.verdict.indexOf(s.verdict) >= 0 || (state.verdict.indexOf('stale') >= 0 && isStale(s));
  }

  // ---- The filter form. ----
  var form = document.getElementById('filters');
  var boxes = {};
  var verdictSet = el('fieldset', {}, [el('legend', { text: 'Verdict' })]);
  verdictChoices.forEach(function (v) {
    var box = el('input', { type: 'checkbox', value: v, onchange: fromForm });
    boxes[v] = box;
    verdictSet.appendChild(el('label', { 'class': 'v-' + v }, [box, ' ' + label(v) + ' (' + present[v] + ')']));
  });
  verdictSet.appendChild(el('button', { type: 'button', text: 'all', onclick: function () {
    state.verdict = null; sync(); apply(); writeHash();
  } }));
  var search = el('input', { type: 'search', placeholder: 'id or name contains…', 'aria-label': 'Scenario id or name contains', oninput: fromForm });
  var levelSelect = el('select', { 'aria-label': 'Level', onchange: fromForm }, [el('option', { value: '', text: 'every level' })]);
  levels.forEach(function (l) { levelSelect.appendChild(el('option', { value: l, text: l })); });
  var tagSelect = el('select', { 'aria-label': 'Tag', onchange: fromForm }, [el('option', { value: '', text: 'every tag' })]);
  allTags.forEach(function (t) { tagSelect.appendChild(el('option', { value: t, text: '@' + t })); });
  form.appendChild(verdictSet);
  form.appendChild(el('label', {}, ['Search ', search]));
  form.appendChild(el('label', {}, ['Level ', levelSelect]));
  if (allTags.length) form.appendChild(el('label', {}, ['Tag ', tagSelect]));
  form.addEventListener('submit', function (e) { e.preventDefault(); });
  form.hidden = false;

  function fromForm() {
    var chosen = verdictChoices.filter(function (v) { return boxes[v].checked; });
    state.verdict = chosen.length === verdictChoices.length ? null : chosen;
    state.q = search.value;
    state.level = levelSelect.value;
    state.tag = tagSelect.value;
    apply();
    writeHash();
  }
  function sync() {
    verdictChoices.forEach(function (v) { boxes[v].checked = !state.verdict || state.verdict.indexOf(v) >= 0; });
    search.value = state.q;
    levelSelect.value = state.level;
    tagSelect.value = state.tag;
  }

  // ---- The matrix. ----
  var showTransport = transports.length > 1 || transports[0] !== '';
  var head = el('tr', {}, [el('th', { scope: 'col', text: 'Scenario' })]);
  columns.forEach(function (c) {
    head.appendChild(el('th', { scope: 'col' }, [c.revision, showTransport ? el('small', {}, [el('br'), c.transport]) : null]));
  });
  var body = el('tbody');
  var rowNodes = [];
  rows.forEach(function (row) {
    var tr = el('tr', { 'data-id': row.id });
    var first = null;
    var cellNodes = [];
    columns.forEach(function (c, ci) {
      var i = row.cells[ci];
      if (i === undefined) {
        tr.appendChild(el('td', { 'class': 'none', title: 'not run at this revision', text: '—' }));
        cellNodes.push(null);
        return;
      }
      var s = scenarios[i];
      var rank = VERDICTS.indexOf(s.verdict);
      if (first === null || (rank >= 0 && rank < VERDICTS.indexOf(scenarios[first].verdict))) first = i;
      var td = el('td', { 'class': 'v-' + str(s.verdict) }, [el('button', {
        type: 'button', 'data-index': i,
        'aria-label': row.id + ' at ' + c.revision + (showTransport ? ' over ' + c.transport : '') + ': ' + label(s.verdict) + (isStale(s) ? ', stale baseline entry' : ''),
        onclick: function () { open(i, true); }
      }, [label(s.verdict), isStale(s) ? el('span', { 'class': 'stale-mark', text: 'stale' }) : null])]);
      tr.appendChild(td);
      cellNodes.push(td);
    });
    var rowButton = el('button', { type: 'button', onclick: function () { if (first !== null) open(first, true); } }, [
      el('span', { 'class': 'sid', text: row.id }), ' ', el('span', { 'class': 'lvl', text: row.level }),
      el('br'), el('span', { 'class': 'sname', text: row.name })
    ]);
    tr.insertBefore(el('th', { scope: 'row' }, [rowButton]), tr.firstChild);
    body.appendChild(tr);
    rowNodes.push({ row: row, tr: tr, cells: cellNodes });
  });
  var table = el('table', { 'class': 'matrix', id: 'matrix' }, [
    el('caption', { text: 'Scenario × revision' + (showTransport ? ' × transport' : '') + ': select a cell for its checks and transcript' }),
    el('thead', {}, [head]), body
  ]);
  document.getElementById('matrix-wrap').appendChild(scenarios.length ? table : el('p', { text: 'No scenario ran.' }));
  var shown = document.getElementById('shown');

  function apply() {
    var q = state.q.toLowerCase(), visible = 0, runs = 0;
    rowNodes.forEach(function (rn) {
      var r = rn.row, hits = 0;
      rn.cells.forEach(function (td, ci) {
        if (!td) return;
        var hit = matches(scenarios[r.cells[ci]]);
        td.classList.toggle('dim', !hit);
        if (hit) hits++;
      });
      var show = hits > 0 &&
        (!q || r.id.toLowerCase().indexOf(q) >= 0 || r.name.toLowerCase().indexOf(q) >= 0) &&
        (!state.level || r.level === state.level) &&
        (!state.tag || r.tags.indexOf(state.tag) >= 0);
      rn.tr.hidden = !show;
      if (show) { visible++; runs += hits; }
    });
    shown.textContent = 'Showing ' + visible + ' of ' + rows.length + ' scenarios (' + runs + ' of ' + scenarios.length + ' runs).';
  }

  // ---- The detail of one scenario run. ----
  var detail = document.getElementById('detail');
  var openRow = null;
  function close() {
    state.open = null;
    detail.hidden = true;
    detail.textContent = '';
    if (openRow) openRow.classList.remove('open');
    writeHash();
  }
  document.addEventListener('keydown', function (e) {
    if (e.key === 'Escape' && !detail.hidden) close();
  });

  function open(i, byUser) {
    var s = scenarios[i];
    state.open = i;
    if (byUser) writeHash();
    if (openRow) openRow.classList.remove('open');
    rowNodes.forEach(function (rn) { if (rn.row.id === str(s.id)) { openRow = rn.tr; rn.tr.classList.add('open'); } });
    detail.textContent = '';
    detail.hidden = false;
    var title = str(s.id) + ' @ ' + str(s.revision) + (transportOf(s) ? ' (' + transportOf(s) + ')' : '');
    detail.appendChild(el('div', { 'class': 'detail-bar' }, [
      el('h2', { id: 'detail-title' }, [title, ' ', el('span', { 'class': 'v-' + str(s.verdict), text: label(s.verdict) })]),
      el('button', { type: 'button', text: 'Close', onclick: close })
    ]));
    if (s.name) detail.appendChild(el('p', { text: s.name }));
    var kv = el('dl', { 'class': 'kv' });
    function fact(name, value) {
      if (value === undefined || value === null || value === '') return;
      kv.appendChild(el('dt', { text: name }));
      kv.appendChild(el('dd', {}, [value]));
    }
    fact('verdict', label(s.verdict));
    fact('reason', s.reason);
    if (s.baseline) {
      fact('baseline', str(s.baseline.status) + (Array.isArray(s.baseline.entries) && s.baseline.entries.length ? ': ' + s.baseline.entries.join(', ') : ''));
    }
    fact('level', s.level);
    fact('clause', s.spec ? el('code', { text: s.spec }) : null);
    fact('feature', s.feature);
    fact('era', s.era);
    fact('tags', Array.isArray(s.tags) && s.tags.length ? s.tags.map(function (t) { return '@' + t; }).join(' ') : null);
    fact('duration', s.duration_ms !== undefined ? s.duration_ms + ' ms' : null);
    fact('session', s.session);
    fact('shutdown', s.shutdown);
    detail.appendChild(kv);

    var transcript = Array.isArray(s.transcript) ? s.transcript : [];
    var seq = drawTranscript(s, transcript);
    detail.appendChild(el('h3', { text: 'Checks' }));
    detail.appendChild(drawChecks(s, transcript, seq));
    if (s.stderr) {
      detail.appendChild(el('h3', { text: 'stderr' }));
      detail.appendChild(el('pre', { 'class': 'stderr', text: s.stderr }));
    }
    detail.appendChild(el('h3', { text: 'Transcript' + (transcript.length ? ' (' + transcript.length + ' entries)' : '') }));
    detail.appendChild(seq.node);
    if (byUser) {
      detail.focus();
      detail.scrollIntoView({ block: 'start' });
    }
  }

  function drawChecks(s, transcript, seq) {
    var checks = Array.isArray(s.checks) ? s.checks : [];
    if (!checks.length) return el('p', { text: 'No check was exercised.' });
    var tbody = el('tbody');
    checks.forEach(function (c, k) {
      var at = typeof c.message === 'number' && c.message >= 0 && c.message < transcript.length ? c.message : null;
      tbody.appendChild(el('tr', { id: 'c' + k, tabindex: '-1' }, [
        el('td', { text: k + 1 }),
        el('td', {}, [el('code', { text: c.id })]),
        el('td', { text: c.level }),
        el('td', { 'class': 'v-' + str(c.verdict) }, [label(c.verdict), c.baselined ? el('small', { text: ' (baselined)' }) : null]),
        el('td', { 'class': 'text', text: c.expected }),
        el('td', { 'class': 'text', text: c.actual }),
        el('td', {}, [el('code', { text: c.spec })]),
        el('td', {}, [at === null ? (typeof c.message === 'number' ? '#' + c.message + ' (not kept)' : '')
          : el('button', { type: 'button', 'class': 'link', text: 'message #' + at, onclick: function () { seq.jump(at); } })])
      ]));
    });
    return el('table', { 'class': 'checks' }, [
      el('thead', {}, [el('tr', {}, ['#', 'Check', 'Level', 'Verdict', 'Expected', 'Actual', 'Clause', 'Message'].map(function (h) {
        return el('th', { scope: 'col', text: h });
      }))]),
      tbody
    ]);
  }

  function focusNode(node) {
    var old = detail.querySelectorAll('.focus');
    for (var j = 0; j < old.length; j++) old[j].classList.remove('focus');
    node.classList.add('focus');
    node.scrollIntoView({ block: 'center' });
    node.focus({ preventScroll: true });
  }

  // The wire log as a two-lane sequence: client on the left, server on the right, an arrow
  // per message in the way it travelled, mcpspec's notes across both lanes.
  function drawTranscript(s, transcript) {
    var flags = {};
    (Array.isArray(s.checks) ? s.checks : []).forEach(function (c, k) {
      if (typeof c.message === 'number' && c.verdict !== 'passed') (flags[c.message] = flags[c.message] || []).push(k);
    });
    var list = el('ol', { 'class': 'seq', 'aria-label': 'Wire transcript' });
    var more = el('div', { 'class': 'more' });
    var node = el('div', {}, [list, more]);
    if (!transcript.length) {
      return { node: el('p', { text: 'No transcript was kept (it is kept when a scenario does not pass).' }), jump: function () {} };
    }
    var mcpspecIsClient = report.role !== 'client';
    list.appendChild(el('li', { 'class': 'lanes-head', 'aria-hidden': 'true' }, [
      el('div', { 'class': 't', text: 'time' }),
      el('div', { 'class': 'lane' }, [
        el('span', { text: mcpspecIsClient ? 'client (mcpspec)' : 'client under test' }),
        el('span', { text: mcpspecIsClient ? 'server under test' : 'server (mcpspec)' })
      ])
    ]));
    var drawn = 0, previousAt = null;
    function entry(i) {
      var e = transcript[i] || {};
      var kind = e.dir === '→' ? 'out' : e.dir === '←' ? 'in' : 'note';
      var time = el('div', { 'class': 't' });
      if (typeof e.at_ms === 'number') {
        time.appendChild(document.createTextNode(e.at_ms + ' ms'));
        if (previousAt !== null && e.at_ms >= previousAt) time.appendChild(el('small', { text: '+' + (e.at_ms - previousAt) }));
        previousAt = e.at_ms;
      }
      var meta = el('div', { 'class': 'meta' }, ['#' + i + (kind === 'out' ? ' client → server' : kind === 'in' ? ' server → client' : ' note') +
        (e.line !== undefined ? ' · line ' + e.line : '')]);
      (flags[i] || []).forEach(function (k) {
        var c = s.checks[k];
        meta.appendChild(document.createTextNode(' '));
        meta.appendChild(el('button', { type: 'button', 'class': 'link flags', text: (c.verdict === 'failed' ? '✗ ' : '! ') + c.id,
          onclick: function () { focusNode(document.getElementById('c' + k)); } }));
      });
      var lane = el('div', { 'class': 'lane' }, [kind === 'note' ? null : el('div', { 'class': 'arrow' }), el('div', { 'class': 'body' }, [meta, message(str(e.text), !!flags[i])])]);
      return el('li', { id: 'm' + i, tabindex: '-1', 'class': kind + (flags[i] ? ' flag' : '') }, [time, lane]);
    }
    function drawTo(n) {
      n = Math.min(n, transcript.length);
      var frag = document.createDocumentFragment();
      for (; drawn < n; drawn++) frag.appendChild(entry(drawn));
      list.appendChild(frag);
      more.textContent = '';
      var left = transcript.length - drawn;
      if (left > 0) {
        more.appendChild(el('span', { text: left + ' more entries' }));
        more.appendChild(el('button', { type: 'button', text: 'show ' + Math.min(CHUNK, left) + ' more', onclick: function () { drawTo(drawn + CHUNK); } }));
        more.appendChild(el('button', { type: 'button', text: 'show all', onclick: function () { drawTo(transcript.length); } }));
      }
    }
    drawTo(CHUNK);
    return {
      node: node,
      jump: function (i) { drawTo(i + 1); focusNode(document.getElementById('m' + i)); }
    };
  }

  // A message's text: short ones as they are, long JSON folded under a one-line summary and
  // indented when unfolded (the wire text itself, re-indented, never re-serialized).
  function message(text, unfold) {
    var value, json = false;
    if (/^\s*[[{]/.test(text)) {
      try { value = JSON.parse(text); json = true; } catch (e) { json = false; }
    }
    if (text.length <= SHORT) return el('code', { text: text });
    var summary = json ? describe(value) + ' · ' + text.length + ' bytes' : text.slice(0, 100) + '…';
    return el('details', { open: unfold }, [el('summary', { text: summary }), el('pre', { text: json ? indent(text) : text })]);
  }
  function describe(v) {
    if (Array.isArray(v)) return 'batch of ' + v.length;
    if (!v || typeof v !== 'object') return 'JSON ' + typeof v;
    var what = typeof v.method === 'string' ? v.method : v.error ? 'error ' + str(v.error.code) : 'result' in v ? 'result' : 'message';
    return what + ('id' in v ? ' · id ' + JSON.stringify(v.id) : '');
  }
  function indent(text) {
    var out = [], depth = 0, inString = false, escaped = false;
    function pad() { return '\n' + new Array(depth + 1).join('  '); }
    for (var i = 0; i < text.length; i++) {
      var c = text[i];
      if (inString) {
        out.push(c);
        if (escaped) escaped = false;
        else if (c === '\\') escaped = true;
        else if (c === '"') inString = false;
      } else if (c === '"') {
        inString = true;
        out.push(c);
      } else if (c === '{' || c === '[') {
        var j = i + 1;
        while (j < text.length && /\s/.test(text[j])) j++;
        if (text[j] === (c === '{' ? '}' : ']')) { out.push(c + text[j]); i = j; continue; }
        depth++;
        out.push(c + pad());
      } else if (c === '}' || c === ']') {
        depth--;
        out.push(pad() + c);
      } else if (c === ',') {
        out.push(',' + pad());
      } else if (c === ':') {
        out.push(': ');
      } else if (!/\s/.test(c)) {
        out.push(c);
      }
    }
    return out.join('');
  }

  // ---- Start, and follow the hash when it is edited or a link is followed. ----
  function fromHash() {
    readHash();
    sync();
    apply();
    if (state.open === null) {
      if (!detail.hidden) { detail.hidden = true; detail.textContent = ''; if (openRow) openRow.classList.remove('open'); }
    } else {
      open(state.open, false);
    }
  }
  window.addEventListener('hashchange', function () {
    if (location.hash.replace(/^#/, '') !== lastHash) fromHash();
  });
  fromHash();
  root.setAttribute('data-ready', '1');
})();
