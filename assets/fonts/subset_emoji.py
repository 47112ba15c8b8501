#!/usr/bin/env python3
"""Builds NotoColorEmoji-Subset.ttf: the emoji people use in chats, cut from Noto Color Emoji.

Source: Debian's fonts-noto-color-emoji 2.042-0+deb12u1 (/usr/share/fonts/truetype/noto/
NotoColorEmoji.ttf), a CBDT/CBLC font with one 109-ppem strike of 136x128 PNGs. The engine reads
the committed subset only, never a font of the machine.

Run with fontTools 4.68.0 (in a throwaway venv, not a project dependency):

    python3 -m venv /tmp/emoji-venv && /tmp/emoji-venv/bin/pip install fonttools==4.68.0
    /tmp/emoji-venv/bin/python assets/fonts/subset_emoji.py [SOURCE.ttf]

Same source and fontTools version give the same bytes (the head table's modified date is pinned).

The 109-ppem strike is kept as it is: the subset of 671 emoji is 1,576,328 bytes (1.5 MiB,
under the 2 MiB budget for it), and re-encoding at a smaller ppem would blur emoji on dense
screens, where text is drawn at 40-60 px. Skin-tone variants are left out: every person emoji is in its default yellow.
ZWJ sequences and flags are kept only when listed below (as GSUB ligatures); the engine draws
any other sequence as its parts.
"""

import os
import sys

from fontTools import subset
from fontTools.ttLib import TTFont

SOURCE = "/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf"
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "NotoColorEmoji-Subset.ttf")

# One emoji per whitespace-separated token; U+FE0F is dropped (the font's sequences omit it).
EMOJI = """
😀 😃 😄 😁 😆 😅 🤣 😂 🙂 🙃 🫠 😉 😊 😇 🥰 😍 🤩 😘 😗 ☺ 😚 😙 🥲 😋 😛 😜 🤪 😝 🤑 🤗 🤭 🫢
🤫 🤔 🫡 🤐 🤨 😐 😑 😶 🫥 😏 😒 🙄 😬 🤥 😌 😔 😪 🤤 😴 😷 🤒 🤕 🤢 🤮 🤧 🥵 🥶 🥴 😵 🤯
🤠 🥳 🥸 😎 🤓 🧐 😕 🫤 😟 🙁 ☹ 😮 😯 😲 😳 🥺 🥹 😦 😧 😨 😰 😥 😢 😭 😱 😖 😣 😞 😓 😩 😫
🥱 😤 😡 😠 🤬 😈 👿 💀 ☠ 💩 🤡 👻 👽 🤖 😺 😸 😹 😻 😼 😽 🙀 😿 😾 🙈 🙉 🙊
💋 💌 💘 💝 💖 💗 💓 💞 💕 💟 ❣ 💔 ❤ 🩷 🧡 💛 💚 💙 🩵 💜 🤎 🖤 🩶 🤍 💯 💢 💥 💫 💦 💨 💬 💭 💤
👋 🤚 🖐 ✋ 🖖 👌 🤌 🤏 ✌ 🤞 🫰 🤟 🤘 🤙 👈 👉 👆 🖕 👇 ☝ 🫵 👍 👎 ✊ 👊 🤛 🤜 👏 🙌 🫶 👐 🤲 🤝 🙏
✍ 💅 🤳 💪 👀 👁 👅 👄 🧠 🫀 👶 🧒 👦 👧 🧑 👱 👨 👩 🧓 👴 👵 🙋 🤷 🤦 🙆 🙅 💁 🙇 👮 🧑 👪
🏃 🚶 💃 🕺 👯 🧘 🏄 🏊 🚴 ⛹ 🏋 🤸 🧗
🐶 🐱 🐭 🐹 🐰 🦊 🐻 🐼 🐨 🐯 🦁 🐮 🐷 🐸 🐵 🐔 🐧 🐦 🐤 🦆 🦅 🦉 🐴 🦄 🐝 🐛 🦋 🐌 🐞 🐢 🐍 🐙
🐠 🐟 🐬 🐳 🐋 🦈 🐘 🦒 🐕 🐈 🐇 🐿 🦔
🌵 🎄 🌲 🌳 🌴 🌱 🌿 ☘ 🍀 🍁 🍂 🍃 🌷 🌹 🥀 🌺 🌸 🌼 🌻 💐
🌞 🌝 🌚 🌙 ⭐ 🌟 ✨ ⚡ 🔥 🌈 ☀ 🌤 ⛅ 🌥 ☁ 🌦 🌧 ⛈ 🌩 🌨 ❄ ☃ ⛄ 🌬 🌪 🌫 ☔ 💧 🌊 🌍 🌎 🌏
🍏 🍎 🍐 🍊 🍋 🍌 🍉 🍇 🍓 🫐 🍒 🍑 🥭 🍍 🥥 🥝 🍅 🥑 🥦 🥕 🌽 🌶 🥔 🥐 🍞 🥖 🧀 🥚 🍳 🥞 🧇 🥓
🍗 🍖 🌭 🍔 🍟 🍕 🥪 🌮 🌯 🥗 🍝 🍜 🍲 🍛 🍣 🍱 🥟 🍤 🍙 🍚 🍦 🍩 🍪 🎂 🍰 🧁 🍫 🍬 🍭 🍿
☕ 🍵 🧃 🥤 🧋 🍺 🍻 🥂 🍷 🥃 🍸 🍹 🍾 🍴 🥄
⚽ 🏀 🏈 ⚾ 🎾 🏐 🎱 🏓 🏸 ⛳ 🏆 🥇 🥈 🥉 🏅 🎯 🎮 🎲 🧩 🎨 🎬 🎤 🎧 🎸 🎹 🎵 🎶
🎉 🎊 🎈 🎁 🎀 🎃 🎆 🎇 🪅 🎟 🎫
🚗 🚕 🚌 🚑 🚒 🚓 🚲 🛴 🏍 ✈ 🚀 🚁 🚂 🚆 🚇 🚢 ⛵ ⚓ ⛽ 🚦 🗺 🏠 🏡 🏢 🏥 🏦 🏨 🏫 🏖 🏝 ⛰ 🏔 🗽 🗼
⌚ 📱 💻 ⌨ 🖥 🖨 🖱 💾 💿 📷 📸 📹 🎥 📞 ☎ 📺 📻 ⏰ ⏳ ⌛ 🔋 🔌 💡 🔦 🕯 💸 💵 💰 💳 💎 🔧 🔨 🛠
🔑 🗝 🔒 🔓 🚪 🛏 🛋 🚿 🛁 🧻 🧼 🛒 🎒 👓 🕶 👔 👕 👖 🧣 🧤 🧥 👗 👙 👠 👟 👑 🎩 🧢 💍 💼 ☂
✉ 📧 📨 📩 📤 📥 📦 📫 📮 📝 📁 📂 📅 📆 📇 📈 📉 📊 📋 📌 📍 📎 🖇 📏 ✂ 🗑 🔍 🔎 📚 📖 🔖 🔗
✏ ✒ 🖊 🖋 🖍
✅ ☑ ✔ ❌ ❎ ➕ ➖ ❓ ❔ ❗ ❕ ‼ ⁉ ⚠ 🚫 ⛔ 🔴 🟠 🟡 🟢 🔵 🟣 ⚫ ⚪ 🟥 🟩 🟦 🔔 🔕 📢 📣 💤 🆗 🆕 🆒 🆘
♻ ⭕ 🔄 🔁 ⏩ ⏪ ▶ ⏸ ⏹ 🔊 🔇 📶 🏁 🚩 🏳 🏴
❤️‍🔥 ❤️‍🩹 😮‍💨 😵‍💫 😶‍🌫️ 🙋‍♀️ 🙋‍♂️ 🤷‍♀️ 🤷‍♂️ 🤦‍♀️ 🤦‍♂️ 🙆‍♀️ 🙅‍♀️ 💁‍♀️ 🙇‍♂️ 👩‍💻 👨‍💻 🧑‍💻 👩‍🍳 👨‍🍳
👨‍👩‍👧 👨‍👩‍👧‍👦 🏃‍♀️ 🏃‍♂️ 🏳️‍🌈 🐕‍🦺 🐈‍⬛
🇺🇸 🇬🇧 🇫🇷 🇩🇪 🇪🇸 🇮🇹 🇯🇵 🇨🇳 🇰🇷 🇮🇳 🇧🇷 🇲🇽 🇨🇦 🇦🇺 🇳🇱 🇪🇺 🇺🇳
"""

ZWJ = 0x200D
VS16 = 0xFE0F


def sequences():
    """The listed emoji as tuples of code points, VS16 removed, first occurrence order."""
    seen = {}
    for token in EMOJI.split():
        seq = tuple(ord(c) for c in token if ord(c) != VS16)
        seen.setdefault(seq, None)
    return list(seen)


def ligatures(font):
    """(first glyph, component glyphs...) -> ligature glyph, from every GSUB ligature lookup."""
    table = {}
    for lookup in font["GSUB"].table.LookupList.Lookup:
        if lookup.LookupType != 4:
            continue
        for sub in lookup.SubTable:
            for first, ligs in sub.ligatures.items():
                for lig in ligs:
                    table.setdefault((first, *lig.Component), lig.LigGlyph)
    return table


def main():
    source = sys.argv[1] if len(sys.argv) > 1 else SOURCE
    font = TTFont(source)
    cmap = font.getBestCmap()
    ligs = ligatures(font)
    glyphs = set()
    unicodes = {ZWJ}
    missing = []
    for seq in sequences():
        if any(cp not in cmap for cp in seq):
            missing.append(seq)
            continue
        names = tuple(cmap[cp] for cp in seq)
        unicodes.update(seq)
        glyphs.update(names)
        if len(seq) > 1:
            if names not in ligs:
                missing.append(seq)
                continue
            glyphs.add(ligs[names])
    if missing:
        sys.exit("not in the source font: " + ", ".join(" ".join(f"U+{cp:04X}" for cp in s) for s in missing))

    options = subset.Options()
    # Only the listed sequences: closure would pull in every ZWJ sequence whose parts are kept.
    options.layout_closure = False
    options.layout_features = ["ccmp"]
    options.name_IDs = ["*"]
    options.notdef_outline = True
    options.drop_tables += ["vhea", "vmtx"]
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=sorted(unicodes), glyphs=sorted(glyphs))
    subsetter.subset(font)
    # Reproducible bytes: the source's dates, not the time the script ran.
    font.recalcTimestamp = False
    font.save(OUT)
    kept = len(font.getGlyphOrder())
    print(f"{OUT}: {len(sequences())} emoji, {kept} glyphs, {os.path.getsize(OUT)} bytes")


if __name__ == "__main__":
    main()
