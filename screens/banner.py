"""The banner across the top of the board: what the game waits for, and from whom, in big
letters over the full sentence, and the room's notices that matter during play."""
from __future__ import annotations

from rich.text import Text

from .bigtext import draw, fits
from .words import counted, has_word, name_of, say, seat_label


# Room notices that matter during play: a seat's phone put out by a re-bind, a bot's seat
# handed to a person, or the host replaced at the Pi. Each is said on the board's banner, so
# it never happens unseen.
PLAY_NOTICES = {"seat_rebound": "notice.seat_rebound_play",
                "seat_handed_over": "notice.seat_handed_over_play",
                "host_replaced": "notice.host_replaced",
                # why the table hears nothing (turned on, the voice is its own news)
                "voice_off": "notice.voice_off", "voice_failed": "notice.voice_failed",
                "voice_missing": "notice.voice_missing"}


def play_notice(kiosk: dict, lang: str) -> Text:
    notice = kiosk["notices"][-1] if kiosk["notices"] else None
    if notice is None or notice["k"] not in PLAY_NOTICES:
        return Text("")
    seat = notice.get("seat")
    names = {s["seat"]: s["name"] for s in kiosk["seats"]}
    return Text.styled("\n\n" + say(lang, PLAY_NOTICES[notice["k"]], name=names.get(seat, ""),
                                     seat=seat + 1 if seat is not None else ""), "bold yellow")


def banner(view: dict, lang: str, sentences: dict, columns: int = 118,
           scales: tuple[int, ...] = (1,)) -> Text:
    """What the game waits for, and from whom: a short form in big letters ("ANA: IN OR
    OUT?", "VOTE: 3 OF 5"), read from across the table, over the full sentence in small
    print. The letters are drawn at the biggest of `scales` that fits (1: 3 rows, 2: 6,
    3: 9; none: the sentence alone). Where no short form fits (a long name, a letter the
    big font lacks) the sentence stands alone in the letters' rows: the banner keeps its
    height, and the board below it its layout."""
    said = sentences.get("banner")
    waiting = view["waiting"]
    if not said and waiting is not None:
        said = say(lang, "board.waiting_for",
                   seats=", ".join(seat_label(view, s) for s in waiting["seats"]),
                   decision=name_of(lang, "decision", waiting["decision"]))
    said = said or ""
    if not scales:  # no room for big letters: the sentence alone
        return Text.styled(said, "bold")
    tall = 3 * max(scales)
    big, scale = next(((words, scale) for words in short_forms(view, lang)
                       for scale in sorted(scales, reverse=True)
                       if fits(words, columns, scale)), (None, 0))
    if big is None:
        above = (tall - 1) // 2
        return Text("\n" * above) + Text.styled(said, "bold") + Text("\n" * (tall - above))
    drawn = draw(big, scale)
    above = (tall - len(drawn)) // 2
    t = Text("\n" * above + "\n".join(drawn) + "\n" * (tall - len(drawn) - above))
    t.append("\n" + said)
    return t


def short_forms(view: dict, lang: str) -> list[str]:
    """What the banner may say in big letters, the first that fits drawn: capitals, the
    seat's name and a few words (kiosk.big.*)."""
    waiting = view["waiting"]
    if waiting is None or view.get("outcome"):
        return []
    kind = waiting["decision"]
    names = [view["seats"][s]["name"] for s in waiting["seats"]
             if 0 <= s < len(view["seats"])]
    if kind in ("vote", "lincoln") and "voters" in waiting:
        counts = {"chosen": len(waiting.get("chosen") or []),
                  "voters": len(waiting.get("voters") or [])}
        target = waiting.get("target")
        forms = []
        if target is not None and 0 <= target < len(view["seats"]):
            forms.append(say(lang, "big.vote_on", target=view["seats"][target]["name"],
                             **counts))
        forms.append(say(lang, "big.vote", **counts))
        return [f.upper() for f in forms]
    what = say(lang, f"big.what.{kind}") if has_word(lang, f"big.what.{kind}") \
        else name_of(lang, "decision", kind)
    forms = []
    if names and len(names) <= 2:
        forms.append(say(lang, "big.who_what", who=", ".join(names), what=what))
    if len(names) > 1:  # "3 PLAYERS: DISCARD DICE"
        forms.append(say(lang, "big.who_what", who=counted(lang, "big.players", len(names)),
                         what=what))
    return [f.upper() for f in forms]
