"""The seal on a seat's traffic: first both ends without a server, the Pi's session table
(companion/web/sessions.py) against the reference phone (companion/web/client.py) with the
real cryptography library (test_sealed_attacks.py makes the same attacks on the real server).
A player who knows the Wi-Fi password can record, replay, reorder and alter every packet;
each of those is refused here and changes nothing."""
from __future__ import annotations

import json
import secrets
from base64 import b64decode

import pytest
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

from companion.core.refusals import RoomError
from companion.web import sealing
from companion.web.client import SealedPhone
from companion.web.sealing import (BLOCK, KIND_REQUEST, KIND_RESPONSE, KIND_STREAM, BadSeal,
                                   b64url, code_id, envelope, nonce, open_sealed, seal,
                                   unb64url)
from companion.web.sessions import (COUNTER_TOP, FRESH_SECONDS, PER_CODE, BrokenSeal, Replayed,
                                    Sessions, UnknownSession)

SEAT, HOST, TABLE = (secrets.token_urlsafe(16) for _ in range(3))
RETIRED = secrets.token_urlsafe(16)  # a seat code the host retired (a re-bind)


def live_codes(*tokens_kinds) -> dict[str, tuple[str, str]]:
    pairs = tokens_kinds or ((SEAT, "seat"), (HOST, "host"), (TABLE, "table"))
    return {code_id(token): (token, kind) for token, kind in pairs}


def retired() -> dict[str, str]:
    return {code_id(RETIRED): RETIRED}


def connect(sessions: Sessions, token: str = SEAT, codes=None, **options) -> SealedPhone:
    """A phone that said hello to `sessions` for `token`, with no server between them."""
    phone = SealedPhone(None, "http://pi.invalid", token, **options)
    phone.accept_hello(sessions.hello(codes or live_codes(), retired(),
                                      phone.hello_body(sessions.fresh.issue())))
    return phone


class Clock:
    """The Pi's monotonic clock, moved by hand."""
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def refused(error: pytest.ExceptionInfo, status: int, code: str) -> None:
    assert isinstance(error.value, RoomError)
    assert (error.value.status, error.value.code) == (status, code), error.value


def state(sessions: Sessions, phone: SealedPhone) -> tuple:
    session = sessions.of_token(phone.token)[0]
    return session.last_request, session.last_ticket, len(sessions)


# --- the handshake ---

def test_both_ends_derive_the_same_keys_and_a_request_goes_there_and_back():
    sessions = Sessions()
    phone = connect(sessions, phone="my-phone-secret")
    (session,) = sessions.of_token(SEAT)
    assert (session.sid, session.kind) == (phone.sid, "seat")
    assert (session.k_up, session.k_down) == (phone.k_up, phone.k_down)
    assert session.k_up != session.k_down

    counter, sealed = phone.sealed_request("command", {"type": "vote", "vote": "yes"}, lang="es")
    assert b"vote" not in sealed and b"my-phone-secret" not in sealed
    opened, got, message = sessions.open_request(sealed)
    assert (opened, got) == (session, counter)
    assert message == {"op": "command", "phone": "my-phone-secret", "lang": "es",
                       "body": {"type": "vote", "vote": "yes"}}
    answer = phone.open_answer(counter, sessions.seal_response(session, counter, 200,
                                                               {"state_id": 12, "ñ": "sí"}))
    assert (answer.status, answer.data) == (200, {"state_id": 12, "ñ": "sí"})


def test_an_answer_given_as_json_bytes_goes_in_as_it_is():
    # A seat's view is sent as the bytes the stream sends, already padded to a length only
    # public things decide: the answer keeps them byte for byte.
    sessions = Sessions()
    phone = connect(sessions)
    counter, sealed = phone.sealed_request("view")
    session, _, _ = sessions.open_request(sealed)
    view = b'{"seat":2,"hand":["\xc3\xb1"]}' + b" " * 300
    raw = sessions.seal_response(session, counter, 200, view)
    assert open_sealed(phone.k_down, nonce(KIND_RESPONSE, counter), phone.sid, raw).startswith(
        b'{"status":200,"body":' + view + b"}")
    assert phone.open_answer(counter, raw).data == {"seat": 2, "hand": ["ñ"]}


def test_each_code_kind_gets_its_own_session():
    sessions = Sessions()
    phones = [connect(sessions, token) for token in (SEAT, HOST, TABLE)]
    assert [sessions.of_token(p.token)[0].kind for p in phones] == ["seat", "host", "table"]
    assert len({p.sid for p in phones}) == 3


def test_a_pi_that_does_not_know_the_token_is_caught_by_its_proof():
    # A stranger's box answering for the same code id, with a token it guessed: the phone
    # must send nothing to it.
    phone = SealedPhone(None, "http://pi.invalid", SEAT)
    body = phone.hello_body(Sessions().fresh.issue())
    private, pi_pub = sealing.new_keypair()
    sid = secrets.token_bytes(16)
    _, k_down = sealing.session_keys(sealing.agree(private, unb64url(body["pub"])),
                                     "guessed" * 3, body["code"], unb64url(body["pub"]), pi_pub)
    proof = ChaCha20Poly1305(k_down).encrypt(nonce(sealing.KIND_PROOF, 0), b"", sid)
    with pytest.raises(BadSeal):
        phone.accept_hello({"session": b64url(sid), "pub": b64url(pi_pub),
                            "proof": b64url(proof)})
    assert phone.sid is None
    with pytest.raises(RuntimeError):
        phone.sealed_request("view")


def test_an_altered_proof_or_key_in_the_hello_answer_is_caught():
    sessions = Sessions()
    for field in ("proof", "pub", "session"):
        phone = SealedPhone(None, "http://pi.invalid", SEAT)
        answer = sessions.hello(live_codes(), {}, phone.hello_body(sessions.fresh.issue()))
        raw = bytearray(unb64url(answer[field]))
        raw[0] ^= 1
        with pytest.raises(BadSeal):
            phone.accept_hello({**answer, field: b64url(bytes(raw))})
        assert phone.sid is None


def signed(sessions: Sessions, token: str, pub: bytes, *, cid: str | None = None) -> dict:
    """A hello for `token` with the public key `pub`, proved as its holder would."""
    cid = code_id(token) if cid is None else cid
    fresh = sessions.fresh.issue()
    proof = sealing.hello_proof(token, cid, pub, unb64url(fresh))
    return {"code": cid, "pub": b64url(pub), "fresh": fresh, "proof": b64url(proof)}


# A point of small order makes the shared secret one anybody knows (all zeros).
SMALL_ORDER = [bytes(32), (1).to_bytes(32, "little"),
               bytes.fromhex("e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800"),
               bytes.fromhex("5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157"),
               bytes.fromhex("ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f")]


@pytest.mark.parametrize("point", SMALL_ORDER)
def test_a_small_order_public_key_is_refused(point):
    sessions = Sessions()
    with pytest.raises(RoomError) as error:
        sessions.hello(live_codes(), {}, signed(sessions, SEAT, point))
    refused(error, 400, "bad_request")
    assert len(sessions) == 0


GOOD_PUB = b64url(bytes(range(1, 33)))


PROVED = {"fresh": b64url(bytes(24)), "proof": b64url(bytes(16))}  # the shape, not the truth


@pytest.mark.parametrize("body, status, code", [
    (["not", "an", "object"], 400, "bad_request"),
    ({}, 400, "bad_request"),
    ({"code": code_id(SEAT), **PROVED}, 400, "bad_request"),
    ({"pub": GOOD_PUB, **PROVED}, 400, "bad_request"),
    ({"code": code_id(SEAT), "pub": GOOD_PUB}, 400, "bad_request"),  # an old phone's hello
    ({"code": code_id(SEAT), "pub": GOOD_PUB, "fresh": PROVED["fresh"]}, 400, "bad_request"),
    ({"code": 7, "pub": GOOD_PUB, **PROVED}, 400, "bad_request"),
    ({"code": code_id(SEAT), "pub": 7, **PROVED}, 400, "bad_request"),
    ({"code": code_id(SEAT), "pub": "not base64!", **PROVED}, 400, "bad_request"),
    ({"code": code_id(SEAT), "pub": "ñññ", **PROVED}, 400, "bad_request"),
    ({"code": code_id(SEAT), "pub": b64url(bytes(31)), **PROVED}, 400, "bad_request"),
    ({"code": code_id(SEAT), "pub": b64url(bytes(33)), **PROVED}, 400, "bad_request"),
    ({"code": code_id(SEAT), "pub": GOOD_PUB, **PROVED, "proof": b64url(bytes(15))}, 400,
     "bad_request"),
    ({"code": code_id(SEAT), "pub": GOOD_PUB, **PROVED, "fresh": 7}, 400, "bad_request"),
    # shaped right but proving nothing: refused as a code nobody knows
    ({"code": SEAT, "pub": GOOD_PUB, **PROVED}, 404, "unknown_token"),  # the token is no id
    ({"code": code_id("A" * 22), "pub": GOOD_PUB, **PROVED}, 404, "unknown_token"),
    ({"code": code_id(SEAT), "pub": GOOD_PUB, **PROVED}, 404, "unknown_token"),
    ({"code": code_id(RETIRED), "pub": GOOD_PUB, **PROVED}, 404, "unknown_token"),
    ({"code": "\ud800", "pub": GOOD_PUB, **PROVED}, 404, "unknown_token"),
])
def test_a_malformed_or_unproved_hello_is_refused_with_its_code(body, status, code):
    sessions = Sessions()
    with pytest.raises(RoomError) as error:
        sessions.hello(live_codes(), retired(), body)
    refused(error, status, code)
    assert error.value.message and len(sessions) == 0


def test_a_retired_codes_old_phone_is_told_its_seat_was_given_away():
    sessions = Sessions()
    phone = SealedPhone(None, "http://pi.invalid", RETIRED)
    with pytest.raises(RoomError) as error:
        sessions.hello(live_codes(), retired(), phone.hello_body(sessions.fresh.issue()))
    refused(error, 404, "seat_given_away")
    assert len(sessions) == 0


def refusal_of(sessions: Sessions, body, codes=None) -> tuple:
    with pytest.raises(RoomError) as error:
        sessions.hello(codes or live_codes(), retired(), body)
    return error.value.status, error.value.code, error.value.message


def test_a_hello_played_again_opens_nothing_and_reads_as_an_unknown_code():
    """A recorder on the Wi-Fi plays a phone's hello again, as often as they like: no second
    session, nobody pushed out, and the Pi's answer is word for word the one for a code it
    never showed, so the replay does not even tell that the code is live."""
    sessions = Sessions()
    phone = SealedPhone(None, "http://pi.invalid", SEAT)
    body = phone.hello_body(sessions.fresh.issue())
    phone.accept_hello(sessions.hello(live_codes(), retired(), body))
    unknown = refusal_of(sessions, {**body, "code": code_id("A" * 22)})
    for _ in range(PER_CODE["seat"] * 3):
        assert refusal_of(sessions, body) == unknown
    assert [s.sid for s in sessions.of_token(SEAT)] == [phone.sid] and len(sessions) == 1
    sessions.open_request(phone.sealed_request("view")[1])  # the phone's own still works


def test_a_hello_with_a_forged_proof_or_another_pis_fresh_value_opens_nothing():
    sessions = Sessions()
    phone = connect(sessions)
    fresh = sessions.fresh.issue()
    forged = {**SealedPhone(None, "x", SEAT).hello_body(fresh)}
    raw = bytearray(unb64url(forged["proof"]))
    raw[3] ^= 0x40
    unknown = refusal_of(sessions, {**forged, "code": code_id("A" * 22)})
    assert refusal_of(sessions, {**forged, "proof": b64url(bytes(raw))}) == unknown
    # a hello proved for another code's id, or with another Pi's (or a restarted Pi's) value
    assert refusal_of(sessions, SealedPhone(None, "x", HOST).hello_body(fresh)
                      | {"code": code_id(SEAT)}) == unknown
    elsewhere = SealedPhone(None, "x", SEAT).hello_body(Sessions().fresh.issue())
    assert refusal_of(sessions, elsewhere) == unknown
    assert len(sessions) == 1
    sessions.open_request(phone.sealed_request("view")[1])


def test_a_recorded_hello_goes_stale_and_a_slow_phones_does_not():
    clock = Clock()
    sessions = Sessions(clock)
    slow = SealedPhone(None, "x", SEAT)
    body = slow.hello_body(sessions.fresh.issue())
    clock.now += FRESH_SECONDS - 1  # a phone that took most of a minute between the two
    slow.accept_hello(sessions.hello(live_codes(), retired(), body))
    late = SealedPhone(None, "x", SEAT).hello_body(sessions.fresh.issue())
    clock.now += FRESH_SECONDS + 1
    assert refusal_of(sessions, late)[1] == "unknown_token"
    assert len(sessions) == 1
    # long after, a replay of the first is stale and no longer remembered: still nothing
    assert refusal_of(sessions, body)[1] == "unknown_token"
    assert len(sessions) == 1


def test_a_fresh_value_is_the_pis_own_and_says_its_age():
    clock = Clock()
    fresh = Sessions(clock).fresh
    value = unb64url(fresh.issue())
    assert fresh.check(value)
    for i in range(len(value)):
        changed = bytearray(value)
        changed[i] ^= 1
        assert not fresh.check(bytes(changed)), i
    assert not fresh.check(value[:-1]) and not fresh.check(value + b"\0")
    clock.now += FRESH_SECONDS + 0.01
    assert not fresh.check(value)
    clock.now -= 2 * FRESH_SECONDS  # a value from the future is nobody's
    assert not fresh.check(value)


# --- what a recorder on the Wi-Fi can do with a request ---

def test_a_replayed_request_is_refused_and_changes_nothing():
    sessions = Sessions()
    phone = connect(sessions)
    _, sealed = phone.sealed_request("command", {"type": "vote", "vote": "no"})
    sessions.open_request(sealed)
    before = state(sessions, phone)
    for _ in range(2):
        with pytest.raises(RoomError) as error:
            sessions.open_request(sealed)
        refused(error, 409, "replayed")
        assert state(sessions, phone) == before
    sessions.open_request(phone.sealed_request("view")[1])  # the phone's next one still counts


def test_a_request_held_back_and_sent_after_a_later_one_is_refused():
    sessions = Sessions()
    phone = connect(sessions)
    _, first = phone.sealed_request("command", {"type": "vote", "vote": "yes"})
    _, second = phone.sealed_request("view")
    sessions.open_request(second)
    before = state(sessions, phone)
    with pytest.raises(Replayed):
        sessions.open_request(first)
    assert state(sessions, phone) == before


def test_a_lost_request_does_not_block_the_next():
    sessions = Sessions()
    phone = connect(sessions)
    phone.sealed_request("view")  # never arrives
    counter, sealed = phone.sealed_request("view")
    assert sessions.open_request(sealed)[1] == counter == 2


def altered(sealed: bytes, at: int) -> bytes:
    raw = bytearray(sealed)
    raw[at] ^= 0x80  # in the counter: a higher one
    return bytes(raw)


SID, COUNTER = sealing.SID_BYTES, sealing.SID_BYTES + sealing.COUNTER_BYTES


@pytest.mark.parametrize("at, status, code", [
    (0, 401, "unknown_session"),            # the session id: no such session
    (SID - 1, 401, "unknown_session"),
    (COUNTER - 1, 400, "bad_seal"),          # a higher counter: not what was sealed
    (COUNTER, 400, "bad_seal"),              # the ciphertext
    (COUNTER + 500, 400, "bad_seal"),
    (-1, 400, "bad_seal"),                   # the tag
])
def test_a_request_altered_anywhere_is_refused_and_changes_nothing(at, status, code):
    sessions = Sessions()
    phone = connect(sessions)
    _, sealed = phone.sealed_request("command", {"type": "vote", "vote": "yes"})
    before = state(sessions, phone)
    with pytest.raises(RoomError) as error:
        sessions.open_request(altered(sealed, at))
    refused(error, status, code)
    assert state(sessions, phone) == before
    sessions.open_request(sealed)  # the true one still opens: the altered one spent nothing


def test_a_counter_lowered_below_the_last_is_refused_as_a_replay():
    sessions = Sessions()
    phone = connect(sessions)
    for _ in range(3):
        sessions.open_request(phone.sealed_request("view")[1])
    _, sealed = phone.sealed_request("view")
    lowered = sealed[:SID] + (2).to_bytes(8, "big") + sealed[COUNTER:]
    with pytest.raises(Replayed):
        sessions.open_request(lowered)


@pytest.mark.parametrize("raw", [b"", b"x", bytes(SID), bytes(SID + 8 + 15)])
def test_a_body_too_short_to_be_sealed_is_refused(raw):
    sessions = Sessions()
    phone = connect(sessions)
    with pytest.raises(RoomError) as error:
        sessions.open_request(raw)
    assert error.value.code in ("bad_seal", "unknown_session")
    # The phone's own session id with too little after it: bad_seal, not a crash.
    with pytest.raises(BrokenSeal):
        sessions.open_request(phone.sid + raw[:8 + 15])
    assert state(sessions, phone) == (0, 0, 1)


def test_another_phones_request_cannot_be_sent_in_this_phones_session():
    # Two phones of the same code (a spare phone, a re-scan): each session has its own keys,
    # so a request recorded from one opens in no other.
    sessions = Sessions()
    mine, theirs = connect(sessions), connect(sessions)
    _, sealed = theirs.sealed_request("command", {"type": "vote", "vote": "no"})
    with pytest.raises(BrokenSeal):
        sessions.open_request(mine.sid + sealed[SID:])
    assert state(sessions, mine)[:2] == (0, 0)


def sealed_with(phone: SealedPhone, counter: int, plaintext: bytes) -> bytes:
    return envelope(phone.sid, counter, seal(phone.k_up, nonce(KIND_REQUEST, counter),
                                             phone.sid, plaintext))


@pytest.mark.parametrize("plaintext", [
    b"not json", b"\xff\xfe", b"[1, 2]", b'"view"', b"{}",
    b'{"op": 1, "phone": "p"}', b'{"op": "view"}', b'{"op": "view", "phone": ""}',
    json.dumps({"op": "view", "phone": "p" * 65}).encode(),
    b'{"op": "view", "phone": "p", "lang": 3}', b'{"op": "view", "phone": "p", "body": []}',
    b"[" * 5000 + b"]" * 5000,
])
def test_a_sealed_request_of_the_wrong_shape_is_refused(plaintext):
    sessions = Sessions()
    phone = connect(sessions)
    with pytest.raises(RoomError) as error:
        sessions.open_request(sealed_with(phone, 1, plaintext))
    refused(error, 400, "bad_request")
    with pytest.raises(Replayed):  # authentic, so its counter is spent: it cannot be retried
        sessions.open_request(sealed_with(phone, 1, b'{"op": "view", "phone": "p"}'))


def test_a_request_without_body_or_lang_has_an_empty_body_and_no_lang():
    sessions = Sessions()
    phone = connect(sessions)
    _, _, message = sessions.open_request(sealed_with(phone, 1, b'{"op":"view","phone":"p"}'))
    assert message == {"op": "view", "phone": "p", "lang": None, "body": {}}


# --- streams ---

def test_a_ticket_replayed_or_held_back_is_refused_and_counted_apart_from_requests():
    sessions = Sessions()
    phone = connect(sessions)
    for _ in range(5):
        sessions.open_request(phone.sealed_request("view")[1])
    n1, first = phone.sealed_ticket(lang="en")
    n2, second = phone.sealed_ticket()
    session, n, message = sessions.open_ticket(first)  # ticket 1 after request 5: its own count
    assert (n, message["op"], message["lang"]) == (n1, "events", "en")
    sessions.open_ticket(second)
    before = state(sessions, phone)
    for ticket in (first, second):
        with pytest.raises(Replayed):
            sessions.open_ticket(ticket)
    assert state(sessions, phone) == before == (5, n2, 1)
    # A request's envelope is no ticket, nor a ticket a request: their nonces differ.
    _, request = phone.sealed_request("view")
    with pytest.raises(BrokenSeal):
        sessions.open_ticket(b64url(request[:SID] + (9).to_bytes(8, "big") + request[COUNTER:]))
    with pytest.raises(RoomError) as error:
        sessions.open_ticket("not a ticket!")
    refused(error, 400, "bad_seal")


def test_stream_messages_open_only_in_order_and_only_in_their_stream():
    sessions = Sessions()
    phone = connect(sessions)
    n, ticket = phone.sealed_ticket()
    session, _, _ = sessions.open_ticket(ticket)
    seal_next = sessions.stream_sealer(session, n)
    # each the text of an event-stream data line, as the phone reads it
    messages = [seal_next(json.dumps({"view": {"n": i}, "notices": []}).encode()).decode()
                for i in range(3)]

    open_next = phone.stream_opener(n)
    assert open_next(messages[0]) == {"view": {"n": 0}, "notices": []}
    with pytest.raises(BadSeal):  # message 1 dropped by a recorder: 2 does not open as 1
        open_next(messages[2])

    open_next = phone.stream_opener(n)
    with pytest.raises(BadSeal):  # message 1 played first
        open_next(messages[1])

    open_next = phone.stream_opener(n)
    open_next(messages[0])
    with pytest.raises(BadSeal):  # message 0 played twice
        open_next(messages[0])

    with pytest.raises(BadSeal):  # a message of another stream (an older ticket)
        phone.stream_opener(n + 1)(messages[0])
    with pytest.raises(BadSeal):  # altered
        # a character whose every bit counts (the last ones before "=" carry spare bits)
        phone.stream_opener(n)(messages[0][:10] + ("A" if messages[0][10] != "A" else "B")
                               + messages[0][11:])
    with pytest.raises(BadSeal):
        phone.stream_opener(n)("not base64!")


# --- lengths: what is sent says nothing by its size ---

def plaintext_length(key: bytes, nonce_: bytes, sid: bytes, data: bytes) -> int:
    return len(open_sealed(key, nonce_, sid, data))


def test_every_sealed_plaintext_is_a_whole_number_of_blocks():
    sessions = Sessions()
    phone = connect(sessions)
    n, ticket = phone.sealed_ticket()
    session, _, _ = sessions.open_ticket(ticket)
    seal_next = sessions.stream_sealer(session, n)
    index = 0
    for size in (0, 1, 100, 1000, 1023, 1024, 1025, 2047, 2048, 2049, 30_000):
        text = "x" * size
        counter, sealed = phone.sealed_request("command", {"t": text})
        length = plaintext_length(phone.k_up, nonce(KIND_REQUEST, counter), phone.sid,
                                  sealed[COUNTER:])
        assert length % BLOCK == 0 and length >= size
        sessions.open_request(sealed)
        answer = sessions.seal_response(session, counter, 200, {"t": text})
        length = plaintext_length(phone.k_down, nonce(KIND_RESPONSE, counter), phone.sid,
                                  answer)
        assert length % BLOCK == 0 and length >= size
        line = seal_next(json.dumps({"view": text}).encode())
        length = plaintext_length(phone.k_down, nonce(KIND_STREAM, n, index), phone.sid,
                                  b64decode(line))
        index += 1
        assert length % BLOCK == 0 and length >= size


def test_short_messages_of_different_lengths_are_sent_at_the_same_length():
    sessions = Sessions()
    phone = connect(sessions)
    n, ticket = phone.sealed_ticket()
    session, _, _ = sessions.open_ticket(ticket)
    seal_next = sessions.stream_sealer(session, n)
    short, long = {"vote": "no"}, {"vote": "yes", "why": "x" * 800}
    requests = [phone.sealed_request("command", body)[1] for body in (short, long)]
    answers = [sessions.seal_response(session, 1, status, body)
               for status, body in ((200, short), (409, {"error": {"code": "x" * 700}}))]
    lines = [seal_next(json.dumps(body).encode()) for body in (short, long)]
    tickets = [phone.sealed_ticket(lang=lang)[1] for lang in (None, "es")]
    for pair in (requests, answers, lines, tickets):
        assert len(pair[0]) == len(pair[1])
    assert len(answers[0]) == BLOCK + sealing.TAG_BYTES


# --- retiring keys ---

def test_a_retired_codes_sessions_are_gone():
    sessions = Sessions()
    old, host = connect(sessions), connect(sessions, HOST)
    _, sealed = old.sealed_request("command", {"type": "vote", "vote": "yes"})
    sessions.retire(SEAT)  # the host re-bound the seat: the old phone's keys go with it
    with pytest.raises(RoomError) as error:
        sessions.open_request(sealed)
    refused(error, 401, "unknown_session")
    with pytest.raises(UnknownSession):
        sessions.open_ticket(old.sealed_ticket()[1])
    sessions.open_request(host.sealed_request("view")[1])  # other codes keep theirs


def test_a_hello_drops_the_sessions_of_codes_no_longer_live():
    sessions = Sessions()
    old = connect(sessions)
    new_seat = secrets.token_urlsafe(16)
    codes = live_codes((new_seat, "seat"), (HOST, "host"), (TABLE, "table"))
    connect(sessions, HOST, codes=codes)
    with pytest.raises(UnknownSession):
        sessions.open_request(old.sealed_request("view")[1])
    # ...and the old code itself is no longer a code: a refused hello retires nothing new.
    phone = SealedPhone(None, "http://pi.invalid", SEAT)
    with pytest.raises(RoomError) as error:
        sessions.hello(codes, {code_id(SEAT): SEAT}, phone.hello_body(sessions.fresh.issue()))
    refused(error, 404, "seat_given_away")


def test_each_code_keeps_its_own_few_sessions_and_the_least_used_goes_first():
    """However many sessions one code opens (every phone at the table on the table code, or
    someone holding it saying hello again and again), no other code's session goes."""
    sessions = Sessions()
    seat, host = connect(sessions), connect(sessions, HOST)
    first, busy = connect(sessions, TABLE), connect(sessions, TABLE)
    for _ in range(PER_CODE["table"] - 2):
        connect(sessions, TABLE)
    sessions.open_request(first.sealed_request("view")[1])  # in use: kept
    connect(sessions, TABLE)
    assert len(sessions.of_token(TABLE)) == PER_CODE["table"]
    with pytest.raises(UnknownSession):
        sessions.open_request(busy.sealed_request("view")[1])
    for _ in range(PER_CODE["table"] * 4):
        connect(sessions, TABLE)
    assert len(sessions.of_token(TABLE)) == PER_CODE["table"]
    for phone in (seat, host):
        sessions.open_request(phone.sealed_request("view")[1])
    assert len(sessions) == PER_CODE["table"] + 2


def test_a_session_at_its_counters_top_takes_no_more():
    sessions = Sessions()
    phone = connect(sessions)
    phone.counter = COUNTER_TOP - 1
    sessions.open_request(phone.sealed_request("view")[1])  # the top itself is the last
    with pytest.raises(UnknownSession):
        sessions.open_request(phone.sealed_request("view")[1])  # say hello again
    assert phone.spent()
    phone.ticket_counter = COUNTER_TOP
    with pytest.raises(UnknownSession):
        sessions.open_ticket(phone.sealed_ticket()[1])
