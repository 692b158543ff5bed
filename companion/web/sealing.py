"""The seal on a seat's traffic: what a phone and the Pi say to each other is readable by
them alone, even to a player who knows the Wi-Fi password and records every packet.

Every code the kiosk shows (a seat's, the host's, the table's) is a 128-bit token carried
only in its URL's fragment, which a browser never sends: it is a key that crossed no
network, only the light between the kiosk's screen and a camera. The phone and the Pi agree
on a session key with ephemeral X25519, bound to that token; from then on every request,
answer and stream message is sealed with ChaCha20-Poly1305 under a counter, so nothing can be
read, replayed, reordered or altered, and padded to a whole number of blocks, so its length
says nothing either. docs/http-api.md ("Sealed traffic") describes the protocol for another
client, and what it does not protect against.

Primitives only: the `cryptography` package does the cryptography; this module puts its
parts together the one way both ends must (companion/web/sessions.py for the Pi's side,
companion/web/client.py and static/seal.js for a phone's).
"""
from __future__ import annotations

import base64
import hashlib
import struct

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

BLOCK = 1024          # every sealed plaintext is a whole number of blocks
SID_BYTES = 16        # a session's id
COUNTER_BYTES = 8
TAG_BYTES = 16
KEY_BYTES = 32
INFO = b"darkmoon seal v1\0"
HELLO_INFO = b"darkmoon hello v1\0"
HELLO_PROOF_BYTES = 16
FRESH_BYTES = 24      # a fresh value: the Pi's clock (8 bytes) and its tag (16)

# What a nonce seals: its first byte, so that no two kinds of message can ever share one.
KIND_REQUEST = 0x01   # phone -> Pi, under the phone's key
KIND_RESPONSE = 0x02  # Pi -> phone: the answer to the request with the same counter
KIND_TICKET = 0x03    # phone -> Pi: a stream's opening, counted apart from requests
KIND_STREAM = 0x04    # Pi -> phone: message `index` of the stream opened by ticket `counter`
KIND_PROOF = 0x05     # Pi -> phone: the handshake's proof that the Pi knows the code


class BadSeal(ValueError):
    """Bytes that are not a sealed message of this session: altered, replayed under another
    nonce, cut short, or sealed with another key."""


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64url(text: str) -> bytes:
    if not isinstance(text, str) or not text.isascii():
        raise ValueError("not base64url")
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (ValueError, TypeError) as error:
        raise ValueError("not base64url") from error


def _short_hash(label: bytes, text: str) -> str:
    return b64url(hashlib.sha256(label + text.encode("utf-8", "replace")).digest()[:16])


def code_id(token: str) -> str:
    """What names a code on the wire: only whoever knows the token (the Pi) can tell which
    code an id is, and the id gives the token away to nobody."""
    return _short_hash(b"darkmoon code id\0", token)


def phone_id(phone: str) -> str:
    """The room's name for a phone, from the secret it sends only sealed: the secret itself is
    never written to the Pi's store."""
    return _short_hash(b"darkmoon phone\0", phone)


def nonce(kind: int, counter: int, index: int = 0) -> bytes:
    return struct.pack(">B", kind) + index.to_bytes(3, "big") + counter.to_bytes(8, "big")


def padded_size(n: int) -> int:
    return max(BLOCK, -(-n // BLOCK) * BLOCK)


def padded(plaintext: bytes) -> bytes:
    """Spaces after the JSON up to a whole number of blocks: its length says only how many
    blocks it took."""
    return plaintext + b" " * (padded_size(len(plaintext)) - len(plaintext))


def seal(key: bytes, nonce_: bytes, aad: bytes, plaintext: bytes) -> bytes:
    """`plaintext` (JSON) padded with spaces to a whole number of blocks, then sealed."""
    return ChaCha20Poly1305(key).encrypt(nonce_, padded(plaintext), aad)


def open_sealed(key: bytes, nonce_: bytes, aad: bytes, data: bytes) -> bytes:
    try:
        return ChaCha20Poly1305(key).decrypt(nonce_, data, aad)
    except (InvalidTag, ValueError, TypeError) as error:
        raise BadSeal("not sealed for this session") from error


def new_keypair() -> tuple[X25519PrivateKey, bytes]:
    private = X25519PrivateKey.generate()
    return private, private.public_key().public_bytes_raw()


def agree(private: X25519PrivateKey, peer: bytes) -> bytes:
    """The shared secret; a public key that is not one (or a small-order point, whose secret
    is all zeros) is refused."""
    try:
        shared = private.exchange(X25519PublicKey.from_public_bytes(peer))
    except (ValueError, TypeError) as error:
        raise BadSeal("not an X25519 public key") from error
    if shared == bytes(KEY_BYTES):
        raise BadSeal("not an X25519 public key")
    return shared


def session_keys(shared: bytes, token: str, cid: str, phone_pub: bytes,
                 pi_pub: bytes) -> tuple[bytes, bytes]:
    """(the phone's key, the Pi's key): bound to the code's token, so only its holders can
    make them, and to both public keys, so nobody can splice two handshakes."""
    okm = HKDF(algorithm=hashes.SHA256(), length=2 * KEY_BYTES, salt=token.encode(),
               info=INFO + cid.encode() + phone_pub + pi_pub).derive(shared)
    return okm[:KEY_BYTES], okm[KEY_BYTES:]


def hello_proof(token: str, cid: str, phone_pub: bytes, fresh: bytes) -> bytes:
    """What makes a hello count: HKDF-SHA256 with the code's token as its salt, so its first
    step is HMAC-SHA256 keyed by the token over the code's id, the hello's own public key and
    the Pi's fresh value. Only a holder of the code can make it, for that key and that value
    alone: a hello recorded on the Wi-Fi proves nothing once played again."""
    return HKDF(algorithm=hashes.SHA256(), length=HELLO_PROOF_BYTES, salt=token.encode(),
                info=HELLO_INFO).derive(cid.encode("utf-8", "replace") + phone_pub + fresh)


def envelope(sid: bytes, counter: int, ciphertext: bytes) -> bytes:
    return sid + counter.to_bytes(COUNTER_BYTES, "big") + ciphertext


def split_envelope(raw: bytes) -> tuple[bytes, int, bytes]:
    if len(raw) < SID_BYTES + COUNTER_BYTES + TAG_BYTES:
        raise BadSeal("too short to be sealed")
    counter = int.from_bytes(raw[SID_BYTES:SID_BYTES + COUNTER_BYTES], "big")
    return raw[:SID_BYTES], counter, raw[SID_BYTES + COUNTER_BYTES:]
