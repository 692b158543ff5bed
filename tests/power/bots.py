"""Phones for the power-cut test: each one a cookie jar that outlives the Pi's restarts (a
phone's browser keeps its cookie) and an aiohttp session made anew for each life of the
product, with event streams read in the background and bots that answer what a seat's own
view asks."""
from __future__ import annotations

import asyncio
import json
import random
from typing import Callable

import aiohttp

NO_TIMEOUT = aiohttp.ClientTimeout(total=None, sock_read=None)  # streams stay open


class Phone:
    def __init__(self, name: str, lang: str):
        self.name = name
        self.lang = lang  # the reader's language: the pages ask for it on every view
        # unsafe=True: aiohttp refuses cookies from an IP-address host otherwise
        self.jar = aiohttp.CookieJar(unsafe=True)
        self.session: aiohttp.ClientSession | None = None

    def connect(self, base_url: str) -> None:
        """A fresh connection pool for a new life of the product; the cookie is kept."""
        self.session = aiohttp.ClientSession(base_url=base_url, cookie_jar=self.jar)

    async def close(self) -> None:
        if self.session is not None:
            await self.session.close()
            self.session = None

    def cookie(self) -> str | None:
        return next((c.value for c in self.jar if c.key == "dm_phone"), None)

    async def post(self, path: str, body: dict | None = None) -> tuple[int, dict]:
        async with self.session.post(path, json=body) as response:
            return response.status, await response.json()

    async def get(self, path: str) -> tuple[int, dict]:
        async with self.session.get(path) as response:
            return response.status, await response.json()


Heard = Callable[[object, str, dict], None]


async def follow(phone: Phone, path: str, audience, heard: Heard) -> None:
    """Read one event stream to its end: heard(audience, event, data) for every message.
    Raises AssertionError if the stream is refused when opened."""
    async with phone.session.get(path, timeout=NO_TIMEOUT) as response:
        if response.status != 200:
            raise AssertionError(f"{phone.name}: {path} answered {response.status}: "
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
