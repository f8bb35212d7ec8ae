"""/settings: a group's admins change how its games are played, through an inline menu.

The menu is one message in the group. Its buttons carry the settings' revision (callback
data ``0:<revision>:g:<arg>``): a menu pressed after another change is outdated and shown
anew, and a press can only pick a value the menu offers (anything else is refused). Each
change is stored at once and posted as one line; games take the settings when they are
dealt, so a change never alters a game in progress.
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING, Any

from bot.presentation.callbacks import Act, Callback
from bot.presentation.keyboards import Button, Keyboard, keyboard, press_button
from bot.presentation.render import variant_name
from bot.presentation.strings import Lang, text
from bot.service.base import Reply, UserInfo
from bot.service.group_options import CHOICES, OPTION_NAMES, GroupOptions, same_value
from bot.storage.group_settings import GroupSettingsRecord

if TYPE_CHECKING:
    from bot.service.deps import Deps
    from bot.service.people import People

#: the menu's own presses (an option's choices are ``option * 10 + choice``)
BACK = 900
CLOSE = 901
OPEN = 800  # OPEN + option: show that option's choices
#: callback data holds the revision in six digits
REVISION_MODULO = 1_000_000


def value_text(lang: Lang, name: str, value: Any) -> str:
    """How a setting's value reads in the menu and in the change line."""
    if isinstance(value, bool):
        return text(lang, "settings.on" if value else "settings.off")
    if name == "default_variant":
        return variant_name(lang, str(value))
    if name == "language":
        return text(lang, f"settings.language.{value or 'opener'}")
    if name == "season":
        return text(lang, f"settings.season.{value}")
    return text(lang, "settings.seconds", n=f"{value:g}")


class GroupSettings:
    def __init__(self, deps: Deps, people: People) -> None:
        self.deps = deps
        self.people = people
        self._records: dict[int, GroupSettingsRecord] = {}

    # ---- what games read -----------------------------------------------------------------

    async def record(self, chat_id: int) -> GroupSettingsRecord:
        record = self._records.get(chat_id)
        if record is None:
            read = await self.deps.db.group_settings.get(chat_id)
            record = self._records.get(chat_id)  # a change may have landed while reading
            if record is None or record.revision < read.revision:
                record = self._records[chat_id] = read
        return record

    async def options(self, chat_id: int) -> GroupOptions:
        """The settings the group's next game is played with."""
        record = await self.record(chat_id)
        return GroupOptions.defaults(self.deps.settings).with_changes(record.changes)

    # ---- the menu ------------------------------------------------------------------------

    async def open_menu(self, chat_id: int, user: UserInfo, *, admin: bool) -> Reply:
        """/settings in a group: the menu for an admin, a refusal for anyone else."""
        lang = await self.people.language(user)
        if not admin:
            return Reply(text(lang, "settings.admins_only"))
        record = await self.record(chat_id)
        menu_lang = await self._menu_language(chat_id, lang)
        body, markup = self._main(menu_lang, record)
        await self.deps.messenger.send(chat_id, body, markup)
        return Reply()

    async def on_press(
        self, user: UserInfo, chat_id: int | None, message_id: int | None, callback: Callback
    ) -> Reply:
        lang = await self.people.language(user)
        if chat_id is None or message_id is None or chat_id > 0:  # menus live in groups
            return Reply(text(lang, "err.outdated"))
        if not await self.deps.is_admin(chat_id, user.user_id):
            return Reply(text(lang, "settings.admins_only"), alert=True)
        arg = callback.arg if callback.arg is not None else -1
        record = await self.record(chat_id)
        menu_lang = await self._menu_language(chat_id, lang)
        if callback.version != record.revision % REVISION_MODULO:
            # another admin changed something since this menu was drawn: draw it anew
            await self._show(chat_id, message_id, *self._main(menu_lang, record))
            return Reply(text(lang, "settings.outdated"))
        if arg == CLOSE:
            await self.deps.messenger.edit(chat_id, message_id, self._summary(menu_lang, record))
            return Reply()
        if arg == BACK:
            await self._show(chat_id, message_id, *self._main(menu_lang, record))
            return Reply()
        if OPEN <= arg < OPEN + len(OPTION_NAMES):
            name = OPTION_NAMES[arg - OPEN]
            await self._show(chat_id, message_id, *self._choices(menu_lang, record, name))
            return Reply()
        option, choice = divmod(arg, 10)
        if not (0 <= arg < 100 and option < len(OPTION_NAMES)):
            return Reply(text(lang, "err.outdated"))
        name = OPTION_NAMES[option]
        if choice >= len(CHOICES[name]):
            return Reply(text(lang, "err.outdated"))
        return await self._change(user, chat_id, message_id, record, name, CHOICES[name][choice])

    async def _change(
        self,
        user: UserInfo,
        chat_id: int,
        message_id: int,
        record: GroupSettingsRecord,
        name: str,
        value: Any,
    ) -> Reply:
        lang = await self.people.language(user)
        current = (await self.options(chat_id)).value(name)
        if same_value(current, value):
            menu_lang = await self._menu_language(chat_id, lang)
            await self._show(chat_id, message_id, *self._main(menu_lang, record))
            return Reply(text(lang, "settings.unchanged"))
        changed = await self.deps.db.group_settings.change(
            chat_id, name, value, revision=record.revision, by=user.user_id, at=self.deps.clock()
        )
        if changed is None:  # another admin's change came first
            self._records.pop(chat_id, None)
            record = await self.record(chat_id)
            menu_lang = await self._menu_language(chat_id, lang)
            await self._show(chat_id, message_id, *self._main(menu_lang, record))
            return Reply(text(lang, "settings.outdated"))
        self._records[chat_id] = changed
        menu_lang = await self._menu_language(chat_id, lang)
        await self._show(chat_id, message_id, *self._main(menu_lang, changed))
        line = text(
            menu_lang,
            "settings.changed",
            name=escape(user.name),
            option=text(menu_lang, f"settings.option.{name}"),
            value=value_text(menu_lang, name, value),
        )
        await self.deps.messenger.send(chat_id, line, notify=False)
        return Reply(text(lang, "settings.saved"))

    async def _menu_language(self, chat_id: int, fallback: Lang) -> Lang:
        """The menu speaks the group's language when it chose one, else the admin's."""
        return (await self.options(chat_id)).language or fallback

    async def _show(
        self, chat_id: int, message_id: int, body: str, markup: Keyboard
    ) -> None:
        await self.deps.messenger.edit(chat_id, message_id, body, markup)

    # ---- what the menu shows -------------------------------------------------------------

    def _options_of(self, record: GroupSettingsRecord) -> GroupOptions:
        return GroupOptions.defaults(self.deps.settings).with_changes(record.changes)

    def _summary(self, lang: Lang, record: GroupSettingsRecord) -> str:
        options = self._options_of(record)
        lines = [text(lang, "settings.title")]
        for name in OPTION_NAMES:
            label = text(lang, f"settings.option.{name}")
            lines.append(f"{label}：{value_text(lang, name, options.value(name))}")
        return "\n".join(lines)

    def _main(
        self, lang: Lang, record: GroupSettingsRecord
    ) -> tuple[str, Keyboard]:
        body = self._summary(lang, record) + "\n\n" + text(lang, "settings.hint")
        buttons = [
            _button(
                f"{text(lang, f'settings.option.{name}')} · "
                f"{value_text(lang, name, self._options_of(record).value(name))}",
                record,
                OPEN + index,
            )
            for index, name in enumerate(OPTION_NAMES)
        ]
        rows = [[button] for button in buttons]
        rows.append([_button(text(lang, "settings.close"), record, CLOSE)])
        return body, keyboard(rows)

    def _choices(
        self, lang: Lang, record: GroupSettingsRecord, name: str
    ) -> tuple[str, Keyboard]:
        option = OPTION_NAMES.index(name)
        current = self._options_of(record).value(name)
        body = text(lang, "settings.choose", option=text(lang, f"settings.option.{name}"))
        buttons = []
        for index, choice in enumerate(CHOICES[name]):
            mark = "✓ " if same_value(choice, current) else ""
            buttons.append(
                _button(mark + value_text(lang, name, choice), record, option * 10 + index)
            )
        rows = [buttons[i : i + 3] for i in range(0, len(buttons), 3)]
        rows.append([_button(text(lang, "settings.back"), record, BACK)])
        return body, keyboard(rows)


def _button(label: str, record: GroupSettingsRecord, arg: int) -> Button:
    data = Callback(0, record.revision % REVISION_MODULO, Act.SETTINGS, arg).encode()
    return press_button(label, data)


__all__ = ["GroupSettings", "value_text"]
