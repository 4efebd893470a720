// ragbeam viz: selection shared by the chunk list, the text and the pages (evaluate/viz.py).
(function () {
  'use strict';
  const chunks = JSON.parse(document.getElementById('chunk-data').textContent);
  const tip = document.getElementById('tip');
  const text = document.getElementById('text');
  const doc = document.getElementById('doc');
  const list = document.getElementById('chunk-list');
  const pages = document.getElementById('pages');
  let hovered = [], selected = [], flashed = [], selfScroll = false;
  let pending = false, shown = null;  // the text's scroll: a check queued, the page shown

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
    // The text scrolls to the chunk now: that scroll must not move the pages column
    // (scroll events come before the next frame's animation callbacks).
    selfScroll = true;
    requestAnimationFrame(() => requestAnimationFrame(() => { selfScroll = false; }));
    if (from !== 'text' && cut) cut.scrollIntoView({block: 'center'});
    if (from !== 'list' && li) reveal(list, li);
    if (pages && from !== 'pages') {
      const c = chunks[n];
      const f = c.page ? markPage(c.page) : null;
      const line = pages.querySelector('rect[data-c~="' + n + '"]');
      if (line) reveal(pages, line); else if (f) pages.scrollTop = f.offsetTop - 8;
    }
    shown = null;  // the pages column shows the chunk now, not the page being read
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
    // The page being read follows the text: the page rule last passed above the text
    // column's top third, found from the text there back (no layout of other sections).
    function pageAt() {
      const c = text.getBoundingClientRect();
      const x = c.left + 40, y = c.top + c.height / 3;
      const hit = document.caretRangeFromPoint ? document.caretRangeFromPoint(x, y)
        : document.caretPositionFromPoint && document.caretPositionFromPoint(x, y);
      let node = hit && (hit.startContainer || hit.offsetNode);
      while (node && node.parentNode && node.parentNode.tagName !== 'SECTION') {
        node = node.parentNode;
      }
      if (!node || !node.parentNode) return null;
      let section = node.parentNode;
      for (;;) {
        for (; node; node = node.previousSibling) {
          if (node.nodeType === 1 && node.classList.contains('pb')) return node.dataset.page;
        }
        section = section.previousElementSibling;
        if (!section) return null;
        node = section.lastChild;
      }
    }
    text.addEventListener('scroll', function () {
      if (pending || selfScroll) return;
      pending = true;
      setTimeout(function () {
        pending = false;
        const page = pageAt();
        if (page === null || page === shown) return;
        shown = page;
        const f = markPage(page);
        if (f) pages.scrollTop = f.offsetTop - 8;
      }, 120);
    }, {passive: true});
  }
  const wanted = /^#chunk-(\d+)$/.exec(location.hash);
  if (wanted && Number(wanted[1]) < chunks.length) select(Number(wanted[1]), 'hash');
})();
