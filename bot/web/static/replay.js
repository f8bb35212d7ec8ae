// A finished game's replay on the web table: the page opened with ?replay=<game> (the replay
// message's button) or a direct link's startapp=r<game>. Every step comes from the bot
// (GET api/replay/<game>?step=N, authenticated by the page's initData like every API call):
// every hand face up, the trick's plays, and at the last step the result. ◀ ▶ step through it.
"use strict";

(() => {
  const tg = window.Telegram && window.Telegram.WebApp ? window.Telegram.WebApp : null;
  const RANKS = { 11: "J", 12: "Q", 13: "K", 14: "A", 15: "2" };
  const SUITS = ["♠", "♥", "♣", "♦"];
  const state = { game: null, initData: "", view: null, busy: false, back: null };

  const $ = (id) => document.getElementById(id);
  const el = (tag, cls, text) => {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  };
  const textOf = (html) => new DOMParser().parseFromString(html, "text/html").body.textContent || "";

  // the game to replay: ?replay=<game>, or a direct link's start parameter r<game>
  function wanted(initData) {
    const query = new URLSearchParams(location.search).get("replay");
    let start = tg && tg.initDataUnsafe ? tg.initDataUnsafe.start_param || "" : "";
    if (!start && initData) start = new URLSearchParams(initData).get("start_param") || "";
    const raw = query || (/^r\d+$/.test(start) ? start.slice(1) : "");
    return /^\d+$/.test(raw) ? raw : null;
  }

  function card(code) {
    const rank = code >> 3;
    const node = el("span", "card mini");
    if (rank >= 16) {
      node.classList.add("joker", rank === 17 ? "large" : "small");
      node.append(el("span", "r", rank === 17 ? "大王" : "小王"));
      return node;
    }
    const suit = code & 7;
    if (suit === 1 || suit === 3) node.classList.add("red");
    node.append(el("span", "r", RANKS[rank] || String(rank)), el("span", "s", SUITS[suit]));
    return node;
  }

  async function load(step) {
    if (state.busy) return;
    state.busy = true;
    try {
      const response = await fetch(`api/replay/${state.game}?step=${step}`, {
        headers: { Authorization: `tma ${state.initData}` },
      });
      let body = {};
      try { body = await response.json(); } catch (_) { body = {}; }
      if (!response.ok) {
        refuse(body.error || String(response.status));
        // 429: whether the viewer is in the group cannot be checked just now; ask again later
        if (response.status === 429) setTimeout(() => load(step), 3000);
        return;
      }
      state.view = body;
      render(body);
    } catch (_) {
      refuse("error");
    } finally {
      state.busy = false;
    }
  }

  function refuse(reason) {
    $("banner").textContent = reason;
    $("banner").hidden = false;
    document.body.dataset.refused = reason;
  }

  function section() {
    let box = $("replay");
    if (!box) {
      box = el("section", "replay");
      box.id = "replay";
      $("app").append(box);
    }
    for (const id of ["table", "hand-area", "panel", "seats", "clock"]) $(id).hidden = true;
    return box;
  }

  function render(view) {
    const s = view.strings;
    document.documentElement.lang = view.lang === "en" ? "en" : "zh";
    document.title = `${s.web_title} #${view.game_id}`;
    $("banner").hidden = true;
    $("variant").textContent = view.variant_name;
    $("status").textContent = `${s.web_title} #${view.game_id} · ${view.where}`;
    const box = section();
    box.replaceChildren();
    const seats = el("ol", "replay-seats");
    view.seats.forEach((seat, index) => {
      const row = el("li", "replay-seat" + (view.leader === index ? " turn" : ""));
      row.dataset.seat = String(index);
      const head = el("div", "replay-head");
      head.append(el("span", "name", (seat.computer ? "🤖 " : "") + seat.name));
      const tags = [seat.place ? seat.place_name : String(seat.cards)];
      if (seat.points !== null) tags.push(s.points.split("{n}").join(String(seat.points)));
      if (seat.revealed) tags.push("👑".repeat(seat.revealed));
      head.append(el("span", "tag", tags.join(" · ")));
      row.append(head);
      const hand = el("div", "replay-hand");
      for (const code of seat.hand) hand.append(card(code));
      row.append(hand);
      seats.append(row);
    });
    box.append(seats);
    const trick = el("ol", "replay-trick");
    for (const play of view.plays) {
      const row = el("li", "play" + (play.pass ? " passed" : ""));
      row.append(el("span", "who", view.seats[play.seat].name));
      const what = el("span", "what");
      if (play.pass) what.textContent = "—";
      else {
        for (const code of play.cards) what.append(card(code));
        what.append(el("span", "kind", play.name));
      }
      row.append(what);
      trick.append(row);
    }
    box.append(trick);
    for (const line of view.lines) box.append(el("div", "replay-line", textOf(line)));
    if (view.result) {
      box.append(el("h2", "", view.result.headline));
      box.append(el("div", "result", textOf(view.result.html)));
    }
    const nav = el("div", "buttons replay-nav");
    const last = view.steps - 1;
    const go = (label, target, id) => {
      const node = el("button", "", label);
      node.type = "button";
      node.id = id;
      node.disabled = target === view.step || target < 0 || target > last;
      node.addEventListener("click", () => load(target));
      nav.append(node);
    };
    go(s.btn_first, 0, "replay-first");
    go(s.btn_prev, view.step - 1, "replay-prev");
    go(s.btn_next, view.step + 1, "replay-next");
    go(s.btn_last, last, "replay-last");
    box.append(nav);
    // Telegram's back button steps back, and on the first step closes the replay
    if (tg && tg.isVersionAtLeast && tg.isVersionAtLeast("6.1") && tg.BackButton) {
      if (state.back) tg.BackButton.offClick(state.back);
      state.back = () => (view.step > 0 ? load(view.step - 1) : tg.close());
      tg.BackButton.onClick(state.back);
      tg.BackButton.show();
    }
    document.body.dataset.replay = String(view.game_id);
    document.body.dataset.step = String(view.step);
    document.body.dataset.ready = "1";
  }

  function start(initData) {
    state.initData = initData;
    state.game = wanted(initData);
    load(0);
  }

  window.CardReplay = { wanted, start };
})();
