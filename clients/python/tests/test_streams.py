"""What the streaming calls decide between attempts, for both clients at once (Attempts and the
calls' Stream): a restore sends its first chunk again and is never tried again once it read
more, a backup is not tried again once bytes came, a journal resumes after the last entry the
caller got, and a streaming attempt is bounded by the call's deadline, not attempt_timeout."""

from __future__ import annotations

import io
from typing import Any, List

import grpc
import pytest

import idnode
from idnode import _calls
from idnode._core import Attempts, Nodes, Options
from idnode.v1 import idnode_pb2 as pb
from test_admin import Failed

LOST = Failed(grpc.StatusCode.UNAVAILABLE, "failed to connect to all addresses; Connection refused")


def attempts(call: Any, timeout: Any = 30.0) -> Attempts[Any]:
    opts = Options.make(["127.0.0.1:1", "127.0.0.1:2"], attempt_timeout=3.0)
    return Attempts(Nodes(opts.nodes, True), opts, call, timeout)


def test_a_restore_sends_its_first_chunk_again_until_it_read_more() -> None:
    call, _ = _calls.restore(idnode.Margin(hilo_add=1), io.BytesIO(b"x" * (_calls.RESTORE_CHUNK + 1)))
    att = attempts(call)
    node, _, _ = att.next()
    first = next(att.request())
    att.failed(node, LOST)  # nothing past the first chunk was read: another node may take it
    node, _, _ = att.next()
    chunks = att.request()
    assert next(chunks) == first and first.HasField("ahead")
    assert next(chunks).data == b"x"
    with pytest.raises(idnode.Unavailable):
        att.failed(node, LOST)


def test_a_restore_raises_the_error_reading_its_source_as_it_is() -> None:
    class Broken(io.BytesIO):
        def read(self, n: int = -1) -> bytes:
            if self.tell():
                raise OSError("disk gone")
            return super().read(n)

    call, _ = _calls.restore(None, Broken(b"y" * _calls.RESTORE_CHUNK))
    att = attempts(call)
    node, _, _ = att.next()
    chunks = att.request()
    next(chunks)
    with pytest.raises(OSError):
        next(chunks)
    with pytest.raises(OSError, match="disk gone"):
        att.failed(node, LOST)


def test_a_backup_is_tried_again_only_until_bytes_came() -> None:
    call, progress = _calls.backup("")
    att = attempts(call)
    node, _, _ = att.next()
    att.failed(node, LOST)
    node, _, _ = att.next()
    assert att.seen(pb.BackupChunk(leader="A", index=7, data=b"abc")) == b"abc"
    att.seen(pb.BackupChunk(leader="A", index=7, data=b"de"))
    assert progress.info == _calls.BackupInfo("A", 7, 5)
    with pytest.raises(idnode.Unavailable):
        att.failed(node, LOST)


def test_a_journal_resumes_after_the_last_entry_the_caller_got() -> None:
    call = _calls.journal("INV", 2, 0)
    att = attempts(call)
    node, _, _ = att.next()
    assert att.request().from_seq == 2
    got: List[pb.SeriesEntry] = [att.seen(pb.SeriesEntry(seq=s)) for s in (2, 3)]
    att.failed(node, LOST)
    att.next()
    assert [e.seq for e in got] == [2, 3] and att.request().from_seq == 4


def test_a_streaming_attempt_lasts_until_the_calls_deadline() -> None:
    assert attempts(_calls.journal("INV", 0, 0), None).next()[2] is None
    _, _, per = attempts(_calls.journal("INV", 0, 0), 20.0).next()
    assert per is not None and 19 < per <= 20
    assert attempts(_calls.list_series(), 20.0).next()[2] == 3.0
