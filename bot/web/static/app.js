// The web table: one page, plain JavaScript. It shows the view the server sends (the seat's
// own view, never another hand), checks a selection against the legal plays the view carries,
// and acts through the bot's one action API (POST /api/action). Live views arrive over a
// WebSocket that reconnects, and resyncs, by itself.
"use strict";

(() => {
  const tg = window.Telegram && window.Telegram.WebApp ? window.Telegram.WebApp : null;
  const hashParams = new URLSearchParams(location.hash.slice(1));
  const query = new URLSearchParams(location.search);
  const initData = (tg && tg.initData) || hashParams.get("tgWebAppData") || "";
  let gameId = query.get("game") || null;

  const RANKS = { 11: "J", 12: "Q", 13: "K", 14: "A", 15: "2" };
  const SUITS = ["♠", "♥", "♣", "♦"];
  const FLUSH_MIN = 5; // as tableview.FLUSH_MIN
  const TRICK_SHOWN = 6; // as render.TRICK_ENTRIES
  const LINGER_MS = 900; // a taken trick stays on the felt this long
  const POINT_RANKS = new Set([5, 10, 13]); // 刨王's point cards: 5, 10, K

  const state = {
    view: null,
    strings: {},
    selected: new Set(), // positions in view.hand (sorted by rank)
    order: 0, // index into ORDERS: by rank, by suit, 理牌
    showLast: false,
    hint: -1,
    deadline: null, // performance.now() when the turn runs out
    busy: false,
    socket: null,
    retry: 0,
    handKey: "",
    linger: null, // a trick just taken, shown a moment before the felt clears
    drag: null, // a slide across the hand: {adding, seen}
  };
  const still = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;

  const $ = (id) => document.getElementById(id);
  const el = (tag, cls, text) => {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  };
  const t = (key, values) => {
    let s = state.strings[key] || FALLBACK[key] || key;
    for (const [k, v] of Object.entries(values || {})) s = s.split(`{${k}}`).join(String(v));
    return s;
  };
  const zh = (navigator.language || "zh").toLowerCase().startsWith("zh");
  const FALLBACK = zh
    ? { big_joker: "大王", small_joker: "小王", connecting: "连接中…", reconnecting: "连接断了，正在重连…", unauthorized: "请从 Telegram 里打开牌桌。", busy: "现在查不到你是不是群成员，稍后自动重试…", error: "出错了，请重试。" }
    : { big_joker: "JOKER", small_joker: "joker", connecting: "Connecting…", reconnecting: "Connection lost, reconnecting…", unauthorized: "Please open the table from Telegram.", busy: "Your membership of the group cannot be checked just now; retrying shortly…", error: "Something went wrong, please try again." };

  // ---- Telegram ---------------------------------------------------------------------------
  // Everything the client offers a Mini App, each only where the client's version has it.
  const atLeast = (version) => Boolean(tg && tg.isVersionAtLeast && tg.isVersionAtLeast(version));
  const haptic = (kind, style) => {
    const feedback = tg && atLeast("6.1") ? tg.HapticFeedback : null;
    if (!feedback) return;
    if (kind === "select") feedback.selectionChanged();
    else if (kind === "impact") feedback.impactOccurred(style || "light");
    else feedback.notificationOccurred(kind);
  };
  const mode = { held: null, back: null };
  // while seated in a game: no swipe down over the hand minimises the app, and closing asks
  function holdTheTable(view) {
    const held = view.seat != null && view.status === "playing";
    if (!tg || mode.held === held) return;
    mode.held = held;
    if (atLeast("7.7")) held ? tg.disableVerticalSwipes() : tg.enableVerticalSwipes();
    if (atLeast("6.2")) held ? tg.enableClosingConfirmation() : tg.disableClosingConfirmation();
  }
  // Telegram's back button closes a sub-screen (the last trick) instead of the app
  function backButton(shown, onBack) {
    if (!tg || !atLeast("6.1") || !tg.BackButton) return;
    if (mode.back) tg.BackButton.offClick(mode.back);
    mode.back = shown ? onBack : null;
    if (shown) { tg.BackButton.onClick(onBack); tg.BackButton.show(); } else tg.BackButton.hide();
  }
  // the device's and Telegram's own insets (notch, home bar, Telegram's header in full screen)
  function applyInsets() {
    if (!tg) return;
    const root = document.documentElement;
    const safe = tg.safeAreaInset || {};
    const content = tg.contentSafeAreaInset || {};
    for (const side of ["top", "bottom", "left", "right"]) {
      const px = (Number(safe[side]) || 0) + (Number(content[side]) || 0);
      root.style.setProperty(`--inset-${side}`, `${px}px`);
    }
  }

  // ---- sound: off unless the player turns it on, remembered for them ------------------------
  // Drawn by the page itself (Web Audio), no files: a tick for a play, a thud for a bomb, a
  // chime when the turn comes. The choice is kept in Telegram's cloud storage (the player's,
  // on every device) where the client has it, else in this browser.
  const SOUND_KEY = "sound";
  const sound = { on: false, context: null };
  function remember(on) {
    if (tg && atLeast("6.9") && tg.CloudStorage) tg.CloudStorage.setItem(SOUND_KEY, on ? "on" : "off");
    try { localStorage.setItem(SOUND_KEY, on ? "on" : "off"); } catch (_) { /* private mode */ }
  }
  function recall(then) {
    let local = null;
    try { local = localStorage.getItem(SOUND_KEY); } catch (_) { local = null; }
    then(local === "on");
    if (tg && atLeast("6.9") && tg.CloudStorage) {
      tg.CloudStorage.getItem(SOUND_KEY, (error, value) => { if (!error && value) then(value === "on"); });
    }
  }
  function beep(kind) {
    if (!sound.on) return;
    const Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) return;
    sound.context = sound.context || new Context();
    const audio = sound.context;
    const tones = { play: [660, 0.06], bomb: [110, 0.35], turn: [880, 0.12] }[kind] || [440, 0.05];
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    osc.type = kind === "bomb" ? "sawtooth" : "sine";
    osc.frequency.value = tones[0];
    gain.gain.setValueAtTime(0.18, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + tones[1]);
    osc.connect(gain).connect(audio.destination);
    osc.start();
    osc.stop(audio.currentTime + tones[1]);
    document.body.dataset.sounds = String((Number(document.body.dataset.sounds) || 0) + 1);
  }
  function showSound() {
    const node = $("sound");
    node.textContent = t(sound.on ? "sound_on" : "sound_off");
    node.setAttribute("aria-pressed", sound.on ? "true" : "false");
  }

  // ---- theme ------------------------------------------------------------------------------
  function applyTheme() {
    let params = tg ? tg.themeParams : null;
    if (!params || !Object.keys(params).length) {
      try { params = JSON.parse(hashParams.get("tgWebAppThemeParams") || "{}"); } catch (_) { params = {}; }
    }
    const root = document.documentElement;
    for (const [key, value] of Object.entries(params || {})) {
      if (typeof value === "string" && /^#[0-9a-fA-F]{3,8}$/.test(value)) {
        root.style.setProperty(`--tg-${key.replace(/_/g, "-")}`, value);
      }
    }
    const bg = (params && params.bg_color) || "";
    const dark = tg ? tg.colorScheme === "dark" : bg && luminance(bg) < 0.4;
    root.classList.toggle("dark", Boolean(dark));
    if (tg && atLeast("6.1")) {  // Telegram's header and the app's background match the page
      tg.setHeaderColor("secondary_bg_color");
      tg.setBackgroundColor("bg_color");
      if (atLeast("7.10") && tg.setBottomBarColor) tg.setBottomBarColor("secondary_bg_color");
    }
  }
  function luminance(hex) {
    const h = hex.replace("#", "");
    const full = h.length === 3 ? h.split("").map((c) => c + c).join("") : h.slice(0, 6);
    const [r, g, b] = [0, 2, 4].map((i) => parseInt(full.slice(i, i + 2), 16) / 255);
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  }

  // ---- cards ------------------------------------------------------------------------------
  const rankOf = (code) => code >> 3;
  const suitOf = (code) => code & 7;
  function cardNode(code, mini) {
    const rank = rankOf(code);
    const node = el("span", "card" + (mini ? " mini" : ""));
    if (rank >= 16) {
      node.classList.add("joker", rank === 17 ? "large" : "small");
      const name = t(rank === 17 ? "big_joker" : "small_joker");
      node.append(el("span", "r", name));
      node.setAttribute("aria-label", name);
      return node;
    }
    const suit = suitOf(code);
    if (suit === 1 || suit === 3) node.classList.add("red");
    if (state.view && state.view.variant === "paowang" && POINT_RANKS.has(rank)) node.classList.add("points");
    const label = RANKS[rank] || String(rank);
    if (label.length > 1) node.classList.add("ten"); // two figures in the strip that shows
    node.append(el("span", "r", label), el("span", "s", SUITS[suit]), el("span", "big", SUITS[suit]));
    node.setAttribute("aria-label", SUITS[suit] + label);
    return node;
  }
  // the same as tableview.signature: ranks, and the one suit of a possible 同花顺
  function signature(codes, withSuits) {
    const sorted = [...codes].sort((a, b) => rankOf(a) - rankOf(b) || suitOf(a) - suitOf(b));
    const ranks = sorted.map(rankOf).join(".");
    const suits = new Set(codes.map(suitOf));
    // a 同花顺 is a run of singles: a 连对 of one suit is the same play whatever its suits
    const distinct = new Set(codes.map(rankOf)).size === codes.length;
    if (withSuits && codes.length >= FLUSH_MIN && distinct && suits.size === 1 && !suits.has(4)) {
      return `${ranks}|${[...suits][0]}`;
    }
    return ranks;
  }

  // ---- the server -------------------------------------------------------------------------
  async function post(kind, cards) {
    const response = await fetch("api/action", {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `tma ${initData}` },
      body: JSON.stringify({ game: state.view ? state.view.game_id : gameId, kind, cards: cards || [] }),
    });
    let body = {};
    try { body = await response.json(); } catch (_) { body = {}; }
    if (!response.ok) throw new Error(body.error || String(response.status));
    return body;
  }

  function connect() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const path = location.pathname.replace(/[^/]*$/, "") + "api/live";
    const socket = new WebSocket(`${scheme}//${location.host}${path}`);
    state.socket = socket;
    socket.addEventListener("open", () => {
      socket.send(JSON.stringify({ auth: initData, game: gameId }));
    });
    socket.addEventListener("message", (event) => {
      let data;
      try { data = JSON.parse(event.data); } catch (_) { return; }
      if (data.error) { showFatal(data.error); return; }
      state.retry = 0;
      $("banner").hidden = true;
      delete document.body.dataset.refused; // a "try again" that succeeded
      show(data);
    });
    socket.addEventListener("close", (event) => {
      if (state.socket !== socket) return;
      // refused: stay refused; but 4429 is "membership not known now": the server says try again
      const busy = event.code === 4429;
      if (event.code >= 4000 && event.code < 4500 && event.code !== 4001 && !busy) return;
      $("banner").textContent = t(busy ? "busy" : "reconnecting");
      $("banner").hidden = false;
      const wait = Math.min(5000, 500 * 2 ** state.retry++);
      setTimeout(connect, wait);
    });
  }

  function showFatal(reason) {
    const key = { "no initData": "unauthorized", "wrong hash": "unauthorized", "initData expired": "unauthorized",
      "not a member of this group": "forbidden", "no such game": "no_game", "no game": "no_game",
      "try again": "busy" }[reason] || "error";
    $("banner").textContent = t(key);
    $("banner").hidden = false;
    document.body.dataset.refused = reason;
  }

  // ---- showing a view ---------------------------------------------------------------------
  function show(view) {
    const previous = state.view;
    // a view that left the server before the one shown (a push crossing a POST's answer)
    if (previous && previous.game_id === view.game_id && view.seq < previous.seq) return;
    state.view = view;
    state.strings = view.strings || state.strings;
    gameId = String(view.game_id);
    document.documentElement.lang = view.lang === "en" ? "en" : "zh";
    const handKey = view.hand.join(",") + "|" + (view.me.legal.length ? "turn" : "");
    if (handKey !== state.handKey || !previous || previous.game_id !== view.game_id) {
      state.selected.clear();
      state.hint = -1;
    }
    state.handKey = handKey;
    if (view.turn !== (previous && previous.turn) || view.seq !== (previous && previous.seq)) state.turnMs = 0;
    state.deadline = view.seconds_left == null ? null : performance.now() + view.seconds_left * 1000;
    const same = previous && previous.game_id === view.game_id;
    // a trick just taken stays on the felt a moment (the view has it as the last trick)
    if (same && previous.trick.length && !view.trick.length && view.last_trick.length) {
      const linger = { trick: view.last_trick };
      state.linger = linger;
      setTimeout(() => {
        if (state.linger !== linger) return;
        state.linger = null;
        if (state.view) renderTrick(state.view);
      }, still ? 400 : LINGER_MS);
    } else if (view.trick.length) state.linger = null;
    if (!same || view.trick.length < (previous ? previous.trick.length : 0)) state.wholeTrick = false;
    render();
    holdTheTable(view);
    // 再来一局 started the next game: every page of this one goes there by itself
    if (view.status === "finished" && view.next_game && state.followed !== view.next_game) {
      state.followed = view.next_game;
      follow(view.next_game);
      return;
    }
    const mine = (v) => v.status === "playing" && v.turn != null && v.turn === v.seat && !v.me.auto_pass;
    if (mine(view) && !(same && mine(previous))) { haptic("impact", "medium"); beep("turn"); } // your turn
    animate(view, view.events || []);
    document.body.dataset.ready = "1";
    document.body.dataset.seq = String(view.seq);
    document.body.dataset.status = view.status;
    document.body.dataset.game = String(view.game_id);
    document.body.dataset.version = String((Number(document.body.dataset.version) || 0) + 1);
  }

  function seatName(view, index) {
    const seat = view.seats[index];
    return seat.you ? t("you") : seat.name;
  }

  function render() {
    const view = state.view;
    if (!view) return;
    document.title = `${view.variant_name} · ${t("title")}`;
    $("variant").textContent = view.variant_name;
    showSound();
    $("app").classList.toggle("finished", view.status === "finished");
    renderStatus(view);
    renderSeats(view);
    renderTrick(view);
    renderPanel(view);
    renderHand(view);
    renderActions(view);
    tick();
  }

  function renderStatus(view) {
    const status = $("status");
    status.classList.remove("mine");
    if (view.status === "finished") {
      status.textContent = view.result ? view.result.headline : t("result");
    } else if (view.gate) {
      status.textContent = t("gate_wait");
    } else if (view.turn != null && view.turn === view.seat && view.me.auto_pass) {
      status.textContent = t("cannot_beat");
    } else if (view.turn != null && view.turn === view.seat) {
      status.textContent = t("your_turn");
      status.classList.add("mine");
    } else if (view.turn != null) {
      status.textContent = t("waiting_for", { name: view.seats[view.turn].name });
    } else {
      status.textContent = view.seat == null ? t("spectating") : "";
    }
  }

  function renderSeats(view) {
    const box = $("seats");
    box.replaceChildren();
    // every other seat on one row: 刨王's four as well as 双扣's three
    box.style.setProperty("--others", String(view.seats.length - (view.seat == null ? 0 : 1)));
    const n = view.seats.length;
    const start = view.seat == null ? 0 : view.seat + 1;
    for (let k = 0; k < n; k++) {
      const index = (start + k) % n;
      if (index === view.seat) continue;
      box.append(seatNode(view, index));
    }
    if (view.seat != null) $("me-line").replaceChildren(...seatTags(view, view.seat));
    else $("me-line").replaceChildren();
  }

  function seatNode(view, index) {
    const seat = view.seats[index];
    const node = el("div", "seat");
    node.dataset.seat = String(index);
    if (seat.turn) node.classList.add("turn");
    if (seat.place) node.classList.add("out");
    node.append(el("span", "name", seat.name));
    const meta = el("div", "meta");
    meta.append(...seatTags(view, index));
    node.append(meta);
    return node;
  }

  function seatTags(view, index) {
    const seat = view.seats[index];
    const tags = [];
    if (seat.crowns) tags.push(el("span", "tag crown", t("crowns", { n: seat.crowns })));
    if (seat.computer) tags.push(el("span", "tag bot", t("computer")));
    if (seat.place) tags.push(el("span", "tag place", t(`place.${seat.place}`)));
    else tags.push(el("span", "tag count", t("cards_left", { n: seat.cards })));
    if (!seat.place && (seat.cards === 1 || seat.cards === 2) && view.status === "playing") {
      tags.push(el("span", "tag alarm", t(seat.cards === 1 ? "last_one" : "last_two")));
    }
    if (seat.points !== undefined) tags.push(el("span", "tag count", t("points", { n: seat.points })));
    if (seat.partner) tags.push(el("span", "tag partner", t("partner")));
    if (seat.takeover) tags.push(el("span", "tag", t("takeover")));
    if (seat.gone) tags.push(el("span", "tag", t("gone")));
    return tags;
  }

  function playNode(view, play, top) {
    const row = el("li", "play" + (play.pass ? " passed" : "") + (top ? " top" : ""));
    row.dataset.seat = String(play.seat);
    row.append(el("span", "who", seatName(view, play.seat)));
    const what = el("span", "what");
    if (play.pass) what.textContent = t("passed");
    else {
      for (const code of play.cards) what.append(cardNode(code, true));
      what.append(el("span", "kind", play.name));
    }
    row.append(what);
    return row;
  }

  function renderTrick(view) {
    const list = $("trick");
    list.replaceChildren();
    const topSeat = view.on_table ? view.on_table.seat : null;
    // the newest plays; the table message in the group keeps the same number
    const lingering = !view.trick.length && state.linger ? state.linger.trick : null;
    list.classList.toggle("taken", Boolean(lingering));
    const trick = lingering || view.trick;
    const shown = state.wholeTrick ? trick : trick.slice(-TRICK_SHOWN);
    if (shown.length < trick.length) {
      const more = el("li", "more", t("more_plays", { n: trick.length - shown.length }));
      more.addEventListener("click", () => { state.wholeTrick = true; renderTrick(state.view); });
      list.append(more);
    }
    for (const play of shown) list.append(playNode(view, play, !lingering && !play.pass && play.seat === topSeat));
    if (!trick.length) {
      const leader = view.turn != null ? seatName(view, view.turn) : "";
      list.append(el("li", "empty", leader ? t("new_trick", { name: leader }) : ""));
    }
    const points = [];
    if (view.trick_points) points.push(t("trick_points", { n: view.trick_points }));
    const sides = sideTotals(view);
    if (sides) points.push(t("sides", sides));
    $("trick-points").textContent = points.join(" · ");
    const toggle = $("last-toggle");
    toggle.textContent = state.showLast ? t("hide_last_trick") : t("last_trick");
    const last = $("last-trick");
    last.replaceChildren();
    if (state.showLast) {
      if (view.last_trick.length) for (const play of view.last_trick) last.append(playNode(view, play, false));
      else last.append(el("li", "empty", t("no_last_trick")));
    }
    last.hidden = !state.showLast;
    backButton(state.showLast, closeLast);
  }

  function closeLast() {
    state.showLast = false;
    if (state.view) renderTrick(state.view);
  }

  // ---- feel: a play travels from its seat to the felt; a bomb has its moment -------------
  let effectTimer = null;
  function animate(view, events) {
    const plays = events.filter((event) => event.type === "play");
    const bomb = plays.filter((event) => event.bomb).pop();
    if (bomb) {
      const node = $("effect");
      node.textContent = bomb.effect || bomb.name;
      node.hidden = false;
      node.classList.remove("boom");
      void node.offsetWidth; // restart the animation
      node.classList.add("boom");
      haptic("impact", "heavy");
      clearTimeout(effectTimer);
      effectTimer = setTimeout(() => { node.hidden = true; }, still ? 900 : 1300);
    }
    const last = plays.pop();
    if (last) beep(bomb ? "bomb" : "play");
    if (!last || still) return;
    const from = last.seat === view.seat ? $("hand") : document.querySelector(`#seats .seat[data-seat="${last.seat}"]`);
    const rows = [...document.querySelectorAll("#trick li.play")].filter((li) => li.dataset.seat === String(last.seat));
    const row = rows.pop();
    if (!from || !row) return;
    const a = from.getBoundingClientRect();
    const b = row.getBoundingClientRect();
    row.style.setProperty("--from-x", `${Math.round(a.left + a.width / 2 - (b.left + b.width / 2))}px`);
    row.style.setProperty("--from-y", `${Math.round(a.top + a.height / 2 - (b.top + b.height / 2))}px`);
    row.classList.add("fly");
    row.addEventListener("animationend", () => row.classList.remove("fly"), { once: true });
  }

  // 刨王: once the viewer knows every seat's side, each side's points so far
  function sideTotals(view) {
    if (view.seat == null || !view.seats.length || view.seats[0].points === undefined) return null;
    let ours = 0;
    let theirs = 0;
    for (const [index, seat] of view.seats.entries()) {
      if (index === view.seat || seat.partner) ours += seat.points;
      else if (seat.opponent) theirs += seat.points;
      else return null; // a side not known yet: no totals that would guess it
    }
    return { ours, theirs };
  }

  function button(label, cls, onClick, id) {
    const node = el("button", cls, label);
    node.type = "button";
    if (id) node.id = id;
    node.addEventListener("click", onClick);
    return node;
  }

  function renderPanel(view) {
    const panel = $("panel");
    panel.replaceChildren();
    const me = view.me;
    if (view.status === "finished" && view.result) {
      panel.append(...resultNodes(view, view.result));
      const lobby = view.next_lobby;
      if (view.next_game) {  // followed at once (show); the button if that did not happen
        panel.append(wrap([button(t("to_next_game"), "primary", () => follow(view.next_game), "to-next")], true));
      } else if (lobby && lobby.can_start) {
        panel.append(el("div", "how", t("next_ready")));
        panel.append(wrap([button(t("start_next"), "primary", () => act("start"), "start-next")], true));
      } else if (lobby) {
        panel.append(el("div", "how", t(lobby.full ? "next_waiting" : "next_filling")));
      } else if (view.seat != null) {
        panel.append(wrap([button(t("again"), "primary", () => act("again"), "again")], true));
      }
    } else if (me.reveal) {
      panel.append(el("div", "", t("reveal_prompt")));
      panel.append(wrap([button(t("decline"), "", () => act("decline"), "decline"),
        button(t("reveal"), "primary", () => act("reveal"), "reveal")]));
    } else if (me.ready) {
      panel.append(el("div", "", t("gate_prompt")));
      panel.append(wrap([button(t("ready"), "primary", () => act("ready"), "ready")], true));
    } else if (view.seat != null && view.seats[view.seat].takeover && view.status === "playing") {
      panel.append(el("div", "", t("takeover")));
      panel.append(wrap([button(t("takeback"), "primary", () => act("takeback"), "takeback")], true));
    }
    panel.hidden = !panel.childElementCount;
  }

  // the result screen: the headline, how it was won (once), a row per seat (你 for the
  // viewer): the change in colour, the new total and title with ↑ ↓, the cards left in hand
  function resultNodes(view, result) {
    const nodes = [el("h2", "", result.headline)];
    for (const line of result.how || []) nodes.push(el("div", "how", line));
    const rows = el("div", "scores");
    for (const row of result.rows || []) {
      const line = el("div", "score-row" + (row.won ? " won" : "") + (row.you ? " you" : ""));
      line.dataset.seat = String(row.seat);
      let name = (row.computer ? "🤖 " : "") + (row.you ? t("you") : row.name);
      if (row.escaped) name += ` · ${t("gone")}`;
      line.append(el("span", "who", name));
      const sign = row.delta > 0 ? "plus" : row.delta < 0 ? "minus" : "zero";
      line.append(el("span", `delta ${sign}`, (row.delta > 0 ? "+" : "") + row.delta));
      const change = row.title_change > 0 ? " ↑" : row.title_change < 0 ? " ↓" : "";
      line.append(el("span", "total", row.score == null ? "" : `${row.score} · ${row.title}${change}`));
      if (row.left && row.left.length) {
        const left = el("div", "left");
        for (const code of row.left) left.append(cardNode(code, true));
        line.append(left);
      }
      rows.append(line);
    }
    nodes.push(rows);
    if (result.earned) nodes.push(el("div", "how earned", result.earned));
    if (result.short_game) nodes.push(el("div", "how", t("short_game")));
    const whole = el("details", "whole");
    whole.append(el("summary", "", t("whole_result")), el("div", "result", textOf(result.html)));
    nodes.push(whole);
    return nodes;
  }

  function wrap(buttons, one) {
    const box = el("div", "buttons" + (one ? " one" : ""));
    box.append(...buttons);
    return box;
  }

  function textOf(html) {
    return new DOMParser().parseFromString(html, "text/html").body.textContent || "";
  }

  // three orders: by rank; by suit; 理牌: the bombs (刨王: the ladder's rungs) first, grouped
  // and marked, then the rest by rank
  const ORDERS = ["rank", "suit", "bombs"];
  function bombRanks(view) {
    const counts = new Map();
    for (const code of view.hand) counts.set(rankOf(code), (counts.get(rankOf(code)) || 0) + 1);
    const least = view.variant === "paowang" ? 3 : 4; // 刨王's ladder starts at 三路
    const bombs = new Set([...counts].filter(([rank, n]) => rank < 16 && n >= least).map(([rank]) => rank));
    const jokers = (counts.get(16) || 0) + (counts.get(17) || 0);
    if (view.variant === "paowang" ? jokers > 0 : jokers === 4) { bombs.add(16); bombs.add(17); }
    return bombs;
  }
  function displayOrder(view) {
    const hand = view.hand;
    const positions = hand.map((_, i) => i);
    const order = ORDERS[state.order];
    if (order === "suit") {
      const suitKey = (code) => (rankOf(code) >= 16 ? 9 : suitOf(code));
      return positions.sort((a, b) => suitKey(hand[a]) - suitKey(hand[b]) || hand[a] - hand[b]);
    }
    if (order === "bombs") {  // the bombs, biggest rank first (jokers together), then the rest
      const bombs = bombRanks(view);
      const group = (code) => (bombs.has(rankOf(code)) ? Math.min(rankOf(code), 16) : -1);
      const key = (p) => (group(hand[p]) < 0 ? 1000 + hand[p] : (20 - group(hand[p])) * 64 + hand[p]);
      return positions.sort((a, b) => key(a) - key(b));
    }
    return positions;
  }
  // the cards as large as the width allows: one row while it fits, else two (smaller cards
  // before a third row), always with a rank-and-suit strip of each card showing
  function handLayout(count, width) {
    const fits = (w, rows) => w + (Math.ceil(count / rows) - 1) * Math.max(18, Math.round(w * 0.38)) <= width;
    // a short hand gets larger cards: at most 72 px for a full one, 92 px for a few
    const largest = count <= 6 ? 92 : count <= 12 ? 80 : 72;
    let w = Math.round(Math.max(40, Math.min(largest, width / (count <= 6 ? 4.4 : count <= 12 ? 5.2 : 6.2))));
    let rows = fits(w, 1) ? 1 : 2;
    while (!fits(w, rows) && w > 40) w -= 1;
    while (!fits(w, rows) && rows < 3) rows += 1;
    const perRow = Math.max(1, Math.ceil(count / rows));
    const step = perRow > 1 ? Math.min(w + 4, (width - w) / (perRow - 1)) : w;
    return { w, step: Math.floor(step), perRow };
  }

  function renderHand(view) {
    const area = $("hand-area");
    // after the game the cards left show in the result (no stray tag where the hand was)
    area.hidden = view.seat == null || view.status === "finished";
    const myTurn = view.status === "playing" && view.turn != null && view.turn === view.seat;
    area.classList.toggle("myturn", myTurn && !view.me.auto_pass);
    $("sort").textContent = t(["by_suit", "by_bombs", "by_rank"][state.order]);
    $("sort").hidden = !view.hand.length;
    const box = $("hand");
    const order = displayOrder(view);
    const layout = handLayout(order.length, Math.max(200, box.clientWidth || 360) - 4);
    box.style.setProperty("--hand-w", `${layout.w}px`);
    box.style.setProperty("--hand-step", `${layout.step}px`);
    const sorting = ORDERS[state.order];
    const bombs = sorting === "bombs" ? bombRanks(view) : new Set();
    const rows = [];
    let previousGroup = null;
    order.forEach((position, k) => {
      if (k % layout.perRow === 0) rows.push(el("div", "row"));
      const code = view.hand[position];
      const node = cardNode(code, false);
      node.dataset.pos = String(position);
      node.setAttribute("role", "button");
      node.setAttribute("aria-pressed", state.selected.has(position) ? "true" : "false");
      if (state.selected.has(position)) node.classList.add("sel");
      const rank = rankOf(code);
      let group = null;
      if (sorting === "suit") group = rank >= 16 ? 9 : suitOf(code);
      else if (sorting === "bombs") group = bombs.has(rank) ? Math.min(rank, 16) : -1;
      if (bombs.has(rank)) node.classList.add("bomb");
      if (group !== null && previousGroup !== null && group !== previousGroup && k % layout.perRow) {
        node.classList.add("gap");
      }
      previousGroup = group;
      rows[rows.length - 1].append(node);
    });
    box.replaceChildren(...rows);
  }

  function selectedCodes() {
    return [...state.selected].sort((a, b) => a - b).map((p) => state.view.hand[p]);
  }

  function matchingPlay(view) {
    const codes = selectedCodes();
    if (!codes.length) return null;
    const sig = signature(codes, view.suits_matter);
    return view.me.legal.find((play) => play.sig === sig) || null;
  }

  function renderActions(view) {
    const me = view.me;
    const myTurn = me.legal.length > 0 || me.can_pass;
    const play = $("play");
    const match = matchingPlay(view);
    if (!state.selected.size) play.textContent = t("play");
    else play.textContent = match ? t("play_named", { name: match.name }) : t("play_illegal");
    play.classList.toggle("illegal", state.selected.size > 0 && !match);
    // a selection that makes no legal play may still be sent: the bot says why not
    play.disabled = !myTurn || !state.selected.size || state.busy;
    $("clear").textContent = t("clear");
    $("clear").disabled = !state.selected.size;
    $("pass").textContent = t("pass");
    $("pass").disabled = !me.can_pass || state.busy;
    $("hint").textContent = state.hint >= 0 && me.legal.length > 1
      ? `${t("hint")} ${state.hint + 1}/${me.legal.length}` : t("hint");
    $("hint").disabled = !me.legal.length || state.busy;
    $("hint-back").hidden = state.hint < 0 || me.legal.length < 2;
    $("actions").hidden = view.status !== "playing" || view.gate;
  }

  function tick() {
    const clock = $("clock");
    if (state.deadline == null || !state.view || state.view.status !== "playing") {
      clock.hidden = true;
      return;
    }
    const remaining = Math.max(0, state.deadline - performance.now());
    const left = Math.ceil(remaining / 1000);
    // the ring round the seat to act empties as its time runs out
    state.turnMs = Math.max(state.turnMs || 0, remaining);
    const ring = document.querySelector("#seats .seat.turn") || (state.view.turn === state.view.seat ? $("hand") : null);
    if (ring) ring.style.setProperty("--left", String(remaining / (state.turnMs || 1)));
    clock.textContent = t("seconds", { n: left });
    clock.classList.toggle("low", left <= 10);
    clock.hidden = false;
  }

  let toastTimer = null;
  function toast(message) {
    const node = $("toast");
    node.textContent = textOf(message);
    node.hidden = !node.textContent;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { node.hidden = true; }, 2600);
  }

  // ---- acting -----------------------------------------------------------------------------
  async function act(kind, cards) {
    if (state.busy) return;
    state.busy = true;
    renderActions(state.view);
    try {
      const body = await post(kind, cards);
      // the answer's view, unless the page has moved on to the next game meanwhile
      if (body.view && String(body.view.game_id) === String(gameId)) show(body.view);
      if (!body.accepted) refused(body.message);
      else haptic("success");
    } catch (error) {
      toast(t("error"));
    } finally {
      state.busy = false;
      if (state.view) renderActions(state.view);
    }
  }

  // a refusal says why (the bot's reason, in the player's language), and the hand shakes
  function refused(message) {
    if (message) toast(message);
    haptic("error");
    const hand = $("hand");
    hand.classList.remove("shake");
    void hand.offsetWidth; // restart the animation
    hand.classList.add("shake");
    document.body.dataset.refusals = String((Number(document.body.dataset.refusals) || 0) + 1);
  }

  function clearSelection() {
    if (!state.selected.size || !state.view) return;
    state.selected.clear();
    state.hint = -1;
    renderHand(state.view);
    renderActions(state.view);
  }

  function follow(next) {
    gameId = String(next);
    state.view = null;
    state.handKey = "";
    const old = state.socket;
    state.socket = null;
    if (old) old.close();
    connect();
  }

  // A tap toggles a card; sliding across the hand selects (or, started on a selected card,
  // deselects) every card the finger passes over. Cards overlap: the card under the finger
  // is the one on top, found by the pointer's point, not the event's first target.
  function setCard(node, selected) {
    const position = Number(node.dataset.pos);
    if (state.selected.has(position) === selected) return;
    if (selected) state.selected.add(position);
    else state.selected.delete(position);
    node.classList.toggle("sel", selected);
    node.setAttribute("aria-pressed", selected ? "true" : "false");
    haptic("select");
  }
  function cardAt(x, y) {
    const node = document.elementFromPoint(x, y);
    const card = node && node.closest ? node.closest("#hand .card") : null;
    return card || null;
  }
  const hand = $("hand");
  hand.addEventListener("pointerdown", (event) => {
    const node = event.target.closest(".card");
    if (!node || !state.view || event.button > 0) return;
    event.preventDefault();
    const adding = !state.selected.has(Number(node.dataset.pos));
    state.drag = { adding, seen: new Set([node.dataset.pos]) };
    if (hand.setPointerCapture) hand.setPointerCapture(event.pointerId);
    setCard(node, adding);
    renderActions(state.view);
  });
  hand.addEventListener("pointermove", (event) => {
    const drag = state.drag;
    if (!drag) return;
    const node = cardAt(event.clientX, event.clientY);
    if (!node || drag.seen.has(node.dataset.pos)) return;
    drag.seen.add(node.dataset.pos);
    setCard(node, drag.adding);
    renderActions(state.view);
  });
  for (const end of ["pointerup", "pointercancel", "lostpointercapture"]) {
    hand.addEventListener(end, () => { state.drag = null; });
  }
  // a tap on the felt (not on a button) clears the selection, as 清空 does
  $("table").addEventListener("click", (event) => {
    if (!event.target.closest("button, .more")) clearSelection();
  });
  $("clear").addEventListener("click", clearSelection);
  $("play").addEventListener("click", () => {
    if (state.view && state.selected.size) act("play", selectedCodes());
  });
  $("pass").addEventListener("click", () => act("pass"));
  // 提示 walks the plays forward (the view lists them in 提示's order); ‹ walks back
  $("hint").addEventListener("click", () => showHint(1));
  $("hint-back").addEventListener("click", () => showHint(-1));
  function showHint(step) {
    const legal = state.view.me.legal;
    if (!legal.length) return;
    state.hint = state.hint < 0 && step < 0 ? legal.length - 1 : (state.hint + step + legal.length) % legal.length;
    const wanted = [...legal[state.hint].cards];
    state.selected.clear();
    state.view.hand.forEach((code, position) => {
      const at = wanted.indexOf(code);
      if (at >= 0) { state.selected.add(position); wanted.splice(at, 1); }
    });
    renderHand(state.view);
    renderActions(state.view);
  }
  $("sort").addEventListener("click", () => {
    state.order = (state.order + 1) % ORDERS.length;
    render();
  });
  // the cards are sized to the width: again when it changes (a turn sideways)
  window.addEventListener("resize", () => { if (state.view) renderHand(state.view); });
  $("sound").addEventListener("click", () => {
    sound.on = !sound.on;
    remember(sound.on);
    showSound();
    beep("play"); // a first sound from the tap itself: browsers allow audio after a gesture
  });
  $("last-toggle").addEventListener("click", (event) => {
    event.stopPropagation(); // not a tap on the felt
    state.showLast = !state.showLast;
    if (state.view) renderTrick(state.view);
  });
  setInterval(tick, 250);

  // ---- start ------------------------------------------------------------------------------
  applyTheme();
  if (tg) {
    tg.ready();
    tg.expand();
    applyInsets();
    if (tg.onEvent) {
      tg.onEvent("themeChanged", applyTheme);
      for (const name of ["safeAreaChanged", "contentSafeAreaChanged", "fullscreenChanged"]) {
        tg.onEvent(name, applyInsets);
      }
    }
    // a card table wants the whole screen on a phone (Telegram 8.0+)
    if (atLeast("8.0") && tg.requestFullscreen && ["android", "ios"].includes(tg.platform)) {
      tg.requestFullscreen();
    }
  }
  recall((on) => { sound.on = on; showSound(); });
  $("banner").textContent = t("connecting");
  $("banner").hidden = false;
  // a replay (?replay=<game>, or a direct link's start parameter r<game>) loads its own script
  const startParam = (tg && tg.initDataUnsafe && tg.initDataUnsafe.start_param)
    || new URLSearchParams(initData).get("start_param") || "";
  if (!initData) showFatal("no initData");
  else if (query.get("replay") || /^r\d+$/.test(startParam)) {
    const script = document.createElement("script");
    script.src = "static/replay.js";
    script.addEventListener("load", () => window.CardReplay.start(initData));
    document.head.append(script);
  } else connect();
})();
