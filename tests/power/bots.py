"""Phones for the power-cut test: each one a phone secret that outlives the Pi's restarts (a
phone's page keeps it in localStorage) and, for each code it opened, the reference client's
sealed session (companion/web/client.py); an aiohttp session is made anew for each life of the
product. The Pi forgets every session when it dies: the first request or stream of a phone
after a restart is refused as an unknown session, and the client says hello again with the
same code and secret, as a phone's page does. Event streams are read in the background, and
bots answer what a seat's own view asks."""
from __future__ import annotations

import asyncio
import json
import random
from typing import Callable

import aiohttp

from companion.web.client import Refused, SealedPhone
from companion.web.sealing import phone_id

NO_TIMEOUT = aiohttp.ClientTimeout(total=None, sock_read=None)  # streams stay open


class Phone:
    def __init__(self, name: str, lang: str):
        self.name = name
        self.lang = lang  # the reader's language: the pages ask for it on every view
        self.secret: str | None = None  # made when it first opens a code, then kept
        self.codes: dict[str, SealedPhone] = {}  # token -> its session, kept over restarts
        self.session: aiohttp.ClientSession | None = None
        self.base = ""

    def connect(self, base_url: str) -> None:
        """A fresh connection pool for a new life of the product; the secret and the codes'
        sessions are kept (the Pi will have forgotten the sessions: they say hello again)."""
        self.base = base_url
        self.session = aiohttp.ClientSession()
        for sealed in self.codes.values():
            sealed.http = self.session

    async def close(self) -> None:
        if self.session is not None:
            await self.session.close()
            self.session = None

    @property
    def room_name(self) -> str | None:
        """How the room knows this phone (never the secret itself)."""
        return phone_id(self.secret) if self.secret is not None else None

    def code(self, token: str) -> SealedPhone:
        if token not in self.codes:
            self.codes[token] = SealedPhone(self.session, self.base, token, phone=self.secret)
            self.secret = self.codes[token].phone
        return self.codes[token]

    async def call(self, token: str, op: str, body: dict | None = None) -> tuple[int, dict]:
        """`op` sealed for `token`'s code: (the op's status, its answer), as the old routes
        gave (status, JSON)."""
        try:
            answer = await self.code(token).call(op, body, lang=self.lang)
        except Refused as refused:  # refused before anything was opened
            return refused.status, {"error": {"code": refused.code,
                                              "message": refused.message}}
        return answer.status, answer.data

    async def board(self) -> tuple[int, dict]:
        async with self.session.get(f"{self.base}/api/board",
                                    params={"lang": self.lang}) as response:
            return response.status, await response.json()


Heard = Callable[[object, str, dict], None]


async def follow(phone: Phone, token: str | None, audience, heard: Heard) -> None:
    """Read one event stream to its end (`token`'s sealed stream, or with None the board's):
    heard(audience, event, data) for every message ("view", "notice", "refused"). Raises
    AssertionError if the stream is refused when opened."""
    if token is None:
        await follow_board(phone, audience, heard)
        return
    try:
        async for message in phone.code(token).events(lang=phone.lang):
            if "refused" in message:
                heard(audience, "refused", {"error": message["refused"]})
                continue
            heard(audience, "view", message["view"])
            for notice in message.get("notices", ()):
                heard(audience, "notice", notice)
    except Refused as refused:
        raise AssertionError(f"{phone.name}: its stream was refused: {refused}") from None


async def follow_board(phone: Phone, audience, heard: Heard) -> None:
    async with phone.session.get(f"{phone.base}/api/board/events", params={"lang": phone.lang},
                                 timeout=NO_TIMEOUT) as response:
        if response.status != 200:
            raise AssertionError(f"{phone.name}: the board stream answered {response.status}: "
                                 f"{await response.text()}")
        assert response.headers["Content-Type"].startswith("text/event-stream")
        buffer = b""
        async for chunk in response.content.iter_any():
            buffer += chunk
            while b"\n\n" in buffer:
                block, buffer = buffer.split(b"\n\n", 1)
                event, data = "message", []
                for line in block.decode().split("\n"):
                    if line.startswith("event:"):
                        event = line[6:].strip()
                    elif line.startswith("data:"):
                        data.append(line[5:].lstrip(" "))
                if data:  # comments (pings) and the retry hint carry no data
                    heard(audience, event, json.loads("\n".join(data)))


def open_decision(payload: dict) -> dict | None:
    """The decision a seat's own screen asks it to make now, if any."""
    view = payload["view"]
    if "state_id" not in view or view["outcome"] is not None:
        return None
    decision = view["you"]["decision"]
    if decision and decision["options"] and decision["chosen"] is None:
        return decision
    return None


def command_for(payload: dict, rng: random.Random, with_state: bool) -> dict:
    """A random legal answer from the seat's view, as a phone sends it (state_id = the view
    it answers, so a tap on an old screen is refused rather than misapplied)."""
    decision = open_decision(payload)
    command = {"decision": decision["decision"], "option": rng.choice(decision["options"])}
    if with_state:
        command["state_id"] = payload["view"]["state_id"]
    return command


def rolls_in_progress(payload: dict) -> list:
    """Dice a seat has rolled and not yet submitted (only that seat's phone sees them)."""
    view = payload["view"]
    return view.get("you", {}).get("rolled", []) if "state_id" in view else []


async def settle(tasks) -> None:
    """Cancel background tasks and wait until they are gone. Their errors are dropped: a
    stream or a request cut off by the power cut ends with one."""
    tasks = list(tasks)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
