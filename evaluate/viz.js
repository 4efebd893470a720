// ragbeam viz: selection shared by the chunk list, the text and the pages (evaluate/viz.py).
(function () {
  'use strict';
  const chunks = JSON.parse(document.getElementById('chunk-data').textContent);
  const tip = document.getElementById('tip');
  const text = document.getElementById('text');
  const doc = document.getElementById('doc');
  const list = document.getElementById('chunk-list');
  const pages = document.getElementById('pages');
  let hovered = [], selected = [], flashed = [], quietUntil = 0;

  function covering(n) {  // every element of chunk n: text segments and page lines
    return document.querySelectorAll('[data-c~="' + n + '"]');
  }
  function describe(c) {
    let s = '#' + c.index + ' · ' + c.tokens + ' tokens · ' + c.chars + ' chars';
    if (c.pages) s += ' · ' + c.pages;
    if (c.parent !== null && c.parent !== undefined) s += ' · parent #' + chunks[c.parent].index;
    if (c.heading) s += '\n' + c.heading;
    return s;
  }
  function showTip(ns) {
    tip.textContent = ns.map(n => describe(chunks[n])).join('\n— overlaps —\n');
    tip.style.display = 'block';
  }
  function hideTip() { tip.style.display = 'none'; }
  function hover(n) {
    for (const el of hovered) el.classList.remove('hl');
    hovered = n === null ? [] : [...doc.querySelectorAll('span[data-c~="' + n + '"]')];
    for (const el of hovered) el.classList.add('hl');
  }
  // Scroll a column so that an element inside it is at about a third of its height.
  function reveal(column, el) {
    if (!column || !el) return;
    const c = column.getBoundingClientRect(), r = el.getBoundingClientRect();
    if (r.top >= c.top + 8 && r.bottom <= c.bottom - 8) return;
    column.scrollTop += r.top - c.top - column.clientHeight / 3;
  }
  function figure(page) { return document.getElementById('pg-' + page); }
  function markPage(page) {
    for (const f of document.querySelectorAll('figure.page.current')) f.classList.remove('current');
    const f = figure(page);
    if (f) f.classList.add('current');
    return f;
  }
  function select(n, from) {
    for (const el of selected) el.classList.remove('sel');
    selected = [...covering(n)];
    const cut = document.getElementById('chunk-' + n);
    const li = document.getElementById('li-' + n);
    for (const el of [...selected, cut, li]) if (el) el.classList.add('sel');
    if (cut) selected.push(cut);
    if (li) selected.push(li);
    quietUntil = performance.now() + 1000;  // the text's scroll must not move the pages now
    if (from !== 'text' && cut) cut.scrollIntoView({block: 'center'});
    if (from !== 'list' && li) reveal(list, li);
    if (pages && from !== 'pages') {
      const c = chunks[n];
      const f = c.page ? markPage(c.page) : null;
      const line = pages.querySelector('rect[data-c~="' + n + '"]');
      if (line) reveal(pages, line); else if (f) pages.scrollTop = f.offsetTop - 8;
    }
    history.replaceState(null, '', '#chunk-' + n);
  }
  function chunkOf(ev) {
    const el = ev.target.closest('[data-c]');
    if (!el) return null;
    const ns = el.dataset.c.split(' ').map(Number);
    return {el: el, ns: ns};
  }

  doc.addEventListener('mouseover', function (ev) {
    const hit = chunkOf(ev);
    if (!hit) { hideTip(); hover(null); return; }
    showTip(hit.ns);
    hover(hit.ns[hit.ns.length - 1]);
  });
  doc.addEventListener('mouseleave', function () { hideTip(); hover(null); });
  doc.addEventListener('click', function (ev) {
    const page = ev.target.closest('a.pb');
    if (page) {
      ev.preventDefault();
      const f = markPage(page.dataset.page);
      if (f && pages) pages.scrollTop = f.offsetTop - 8;
      return;
    }
    const hit = chunkOf(ev);
    if (!hit) return;
    ev.preventDefault();
    select(hit.ns[hit.ns.length - 1], hit.el.classList.contains('cut') ? 'marker' : 'text');
  });
  list.addEventListener('click', function (ev) {
    const li = ev.target.closest('li[data-n]');
    if (!li) return;
    ev.preventDefault();
    select(Number(li.dataset.n), 'list');
  });
  const removed = document.querySelector('ul.furniture');
  removed.addEventListener('click', function (ev) {
    const a = ev.target.closest('a[data-page]');
    if (!a) return;
    ev.preventDefault();
    const f = markPage(a.dataset.page);
    if (f && pages) {
      pages.scrollTop = f.offsetTop - 8;
      for (const el of flashed) el.classList.remove('flash');
      flashed = [...f.querySelectorAll('rect.fur')];
      for (const el of flashed) el.classList.add('flash');
    } else {
      const rule = document.getElementById('pb-' + a.dataset.page);
      if (rule) rule.scrollIntoView({block: 'start'});
    }
  });
  if (pages) {
    pages.addEventListener('mouseover', function (ev) {
      const hit = chunkOf(ev);
      if (hit) showTip(hit.ns); else hideTip();
    });
    pages.addEventListener('mouseleave', hideTip);
    pages.addEventListener('click', function (ev) {
      const caption = ev.target.closest('figcaption a');
      if (caption) {
        ev.preventDefault();
        const rule = document.getElementById('pb-' + caption.closest('figure').dataset.page);
        if (rule) rule.scrollIntoView({block: 'start'});
        return;
      }
      const hit = chunkOf(ev);
      if (hit) select(hit.ns[hit.ns.length - 1], 'pages');
    });
    // The page being read follows the text: the last page rule above the top third.
    const observer = new IntersectionObserver(function (entries) {
      if (performance.now() < quietUntil) return;
      for (const entry of entries) {
        const page = Number(entry.target.dataset.page);
        let current = null;
        if (entry.isIntersecting) current = page;
        else if (entry.boundingClientRect.top > entry.rootBounds.bottom) current = page - 1;
        if (current === null) continue;
        const f = markPage(current) || figure(page);
        if (f) pages.scrollTop = f.offsetTop - 8;
      }
    }, {root: text, rootMargin: '0px 0px -66% 0px'});
    for (const rule of doc.querySelectorAll('a.pb')) observer.observe(rule);
  }
  const wanted = /^#chunk-(\d+)$/.exec(location.hash);
  if (wanted && Number(wanted[1]) < chunks.length) select(Number(wanted[1]), 'hash');
})();
