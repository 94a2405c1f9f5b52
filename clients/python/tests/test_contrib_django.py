"""The Django adapter against a real node and a real PostgreSQL: keys filled on save without an
UPDATE first, bulk_create in one take, the keys an application set kept, and idnode's failures
raised as django.db.DatabaseError before any row is written."""

from __future__ import annotations

import re
import threading
from typing import Any, Callable, Iterator, List

import pytest

from ormtests import Calls, Gate, in_threads
from cluster import Control
from faulttable import adapter_situations, check_section, play
from postgres import Postgres, importable, need

need("python3-django (apt)", importable("django"))

import django  # noqa: E402
from django.conf import settings  # noqa: E402

import idnode  # noqa: E402

DATABASE = "django_tests"
APP = "django-tests"  # the application_name of Django's connections, watched in pg_stat_activity


@pytest.fixture(scope="module")
def shop(postgres: Postgres) -> Any:
    """Django set up on a database of its own, with the drill's tables made from the models."""
    postgres.database(DATABASE)
    settings.configure(
        DATABASES={"default": {"ENGINE": "django.db.backends.postgresql", "NAME": DATABASE, "HOST": "127.0.0.1",
                               "PORT": str(postgres.port), "USER": "idnode",
                               "OPTIONS": {"application_name": APP}}},
        INSTALLED_APPS=[], USE_TZ=True,
    )
    django.setup()
    import django_shop
    from django.db import connection

    with connection.schema_editor() as editor:
        for model in django_shop.MODELS:
            editor.create_model(model)
    return django_shop


@pytest.fixture
def db(shop: Any) -> Iterator[Any]:
    for model in shop.MODELS:
        model.objects.all().delete()
    yield shop


@pytest.fixture
def calls(cluster: Control) -> Iterator[Calls]:
    from idnode.contrib.django import bind

    rec = Calls()
    with idnode.Client(cluster.addrs(), interceptors=[rec]) as client:
        bind(client)
        yield rec


def number(id: str) -> int:
    m = re.fullmatch(r"orders/(\d+)-A", id)
    assert m, id
    return int(m.group(1))


def test_save_fills_the_key_with_one_insert_and_no_update(db: Any, calls: Calls) -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        order = db.Order(seq=1)
        order.save()
        invoice = db.Invoice.objects.create(seq=1)
        event = db.Event.objects.create(seq=1)
        counter = db.Counter.objects.create(seq=1)
    assert [q["sql"].split()[0] for q in queries.captured_queries] == ["INSERT"] * 4, queries.captured_queries
    assert order.id == "orders/1-A" and invoice.id == 1 and counter.id == 1 and event.id > 1 << 32
    assert db.Order.objects.get(seq=1).id == "orders/1-A"
    order.seq = 2
    order.save()  # an update of the saved row: the key stays
    assert list(db.Order.objects.values_list("id", "seq")) == [("orders/1-A", 2)]


def test_bulk_create_takes_one_block(db: Any, calls: Calls) -> None:
    invoices = db.Invoice.objects.bulk_create([db.Invoice(seq=i) for i in range(30)])
    assert calls.count("NextIdentity") == 1
    assert [i.id for i in invoices] == list(range(1, 31))
    orders = db.Order.objects.bulk_create([db.Order(seq=i) for i in range(30)])
    assert [number(o.id) for o in orders] == list(range(1, 31))
    assert sorted(db.Invoice.objects.values_list("id", flat=True)) == list(range(1, 31))
    # A plain QuerySet (no KeyManager) still fills every key, one at a time.
    from django.db.models import QuerySet

    events = QuerySet(model=db.Event).bulk_create([db.Event(seq=i) for i in range(5)])
    assert len({e.id for e in events}) == 5 and db.Event.objects.count() == 5


def test_keys_the_application_set_are_kept_checked_and_claimed(db: Any, calls: Calls) -> None:
    from idnode.contrib.django import IdnodeKeyError

    db.Order(id="orders/by-hand", seq=0).save()
    assert db.Order.objects.create(id="orders|", seq=1).id == "orders/1"
    db.Invoice.objects.create(id=3, seq=0)  # claimed as invoices/3: the counter skips it
    db.Invoice.objects.bulk_create([db.Invoice(seq=i) for i in range(1, 5)])
    assert list(db.Order.objects.order_by("seq").values_list("id", flat=True)) == ["orders/by-hand", "orders/1"]
    assert sorted(db.Invoice.objects.values_list("id", flat=True)) == [1, 2, 3, 4, 5]

    for bad, reason in ((db.Invoice(id=3), "CLAIMED"), (db.Invoice(id=-1), "INVALID_INPUT"), (db.Order(id="orders/a\x01b"), "INVALID_INPUT")):
        with pytest.raises(IdnodeKeyError) as caught:
            bad.save()
        assert caught.value.reason == reason, caught.value
        assert isinstance(caught.value.__cause__, idnode.IdnodeError)
        with pytest.raises(IdnodeKeyError):
            type(bad).objects.bulk_create([type(bad)(seq=9), bad])
    assert db.Invoice.objects.count() == 5 and db.Order.objects.count() == 2, "a refused key wrote a row"


def test_a_closed_or_unreachable_cluster_is_a_database_error_and_writes_nothing(db: Any, cluster: Control) -> None:
    from django.db import DatabaseError, transaction

    from idnode.contrib.django import IdnodeKeyError, bind

    closed = idnode.Client(cluster.addrs())
    closed.close()
    with idnode.Client(["127.0.0.1:1"], timeout=0.5, attempt_timeout=0.2, fetch_timeout=0.5) as unreachable:
        for client, cause in ((closed, idnode.ClientClosed), (unreachable, (idnode.Unavailable, idnode.DeadlineExceeded))):
            bind(client)
            for model in (db.Order, db.Invoice):
                with pytest.raises(DatabaseError) as saved:
                    with transaction.atomic():
                        db.Serial.objects.create(seq=1)
                        model.objects.create(seq=1)
                with pytest.raises(IdnodeKeyError) as bulk:
                    model.objects.bulk_create([model(seq=i) for i in range(3)])
                for caught in (saved, bulk):
                    assert isinstance(caught.value, IdnodeKeyError) and isinstance(caught.value.__cause__, cause)
                    assert caught.value.reason == caught.value.orig.reason
            for model in db.MODELS:
                assert model.objects.count() == 0, f"{model.__name__}: a half-written row"
    with idnode.Client(cluster.addrs()) as client:
        bind(client)
        assert db.Order.objects.create(seq=1).id == "orders/1-A"


@pytest.mark.parametrize("manager", ["objects", "_base_manager"])
def test_keys_are_awaited_outside_a_transaction_and_a_failure_writes_nothing(db: Any, cluster: Control, postgres: Postgres,
                                                                              manager: str) -> None:
    """bulk_create of 500 rows in batches of 10, through KeyManager and through Django's plain
    manager: while their keys are awaited (the HiLo range call held at the gate) no connection
    of the application is in a transaction; when no key can be had (the node killed), the
    error is Django's and no row is written."""
    from django.db import connection
    from idnode.contrib.django import IdnodeKeyError, bind
    from django.db import DatabaseError

    gate = Gate("NextHiLo")
    outcome: List[BaseException] = []

    def save() -> None:
        try:
            getattr(db.Counter, manager).bulk_create([db.Counter(seq=i) for i in range(500)], batch_size=10)
        except BaseException as e:  # noqa: B036 - handed to the test's thread
            outcome.append(e)
        finally:
            connection.close()  # this thread's own connection

    with idnode.Client(cluster.addrs(), interceptors=[gate], fetch_timeout=5.0) as client:
        bind(client)
        gate.shut()
        saver = threading.Thread(target=save)
        saver.start()
        try:
            gate.wait_held()
            held = postgres.in_transaction(APP)
            cluster.send({"cmd": "kill", "node": "leader"})
        finally:
            gate.open()
            saver.join(60)
    assert not saver.is_alive(), "bulk_create did not end within 60 s of its node's death"
    assert held == [], f"while the keys were awaited, connections of the application were in a transaction: {held}"
    assert len(outcome) == 1 and isinstance(outcome[0], IdnodeKeyError), outcome
    assert isinstance(outcome[0], DatabaseError) and isinstance(outcome[0].__cause__, idnode.IdnodeError)
    assert db.Counter.objects.count() == 0, "the failed bulk_create wrote rows"


def test_threads_bulk_creating_write_no_key_twice(db: Any, calls: Calls) -> None:
    from django.db import connection

    def insert_batch(model: Any, worker: int, seqs: List[int]) -> None:
        model.objects.bulk_create([model(worker=worker, seq=q) for q in seqs])

    in_threads(6, 10, (db.Order, db.Invoice, db.Event, db.Counter), insert_batch, after=lambda: connection.close())
    assert sum(m.objects.count() for m in (db.Order, db.Invoice, db.Event, db.Counter)) == 6 * 10 * 7


def test_the_fields_survive_a_migration(db: Any) -> None:
    for model in db.MODELS[:4]:
        field = model._meta.pk
        name, path, args, kwargs = field.deconstruct()
        assert path.startswith("idnode.contrib.django."), path
        again = type(field)(*args, **kwargs)
        assert again.deconstruct()[1:] == (path, args, kwargs)
        assert "default" not in kwargs


@pytest.mark.topology({"nodes": 3})
def test_the_django_adapters_table(db: Any, cluster: Control) -> None:
    """docs/fault-table.md's Django table: a bulk_create of rows keyed by idnode in each
    situation, one after another on one three-node cluster (IDNODE_WRITE_FAULT_TABLE=1 rewrites
    the table)."""
    from idnode.contrib.django import bind

    def bulk_create(model: Any) -> Callable[[], object]:
        return lambda: model.objects.bulk_create([model(seq=i) for i in range(3)])

    situations = adapter_situations(cluster, bind, bulk_create(db.Invoice), bulk_create(db.Order), bulk_create(db.Counter))
    table = play(cluster, "a bulk_create of rows keyed by identities", "a bulk_create of rows keyed by HiLo IDs", situations)
    check_section("django", "tests/test_contrib_django.py", table, adapter=True)
