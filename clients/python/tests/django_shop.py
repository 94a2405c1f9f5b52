"""The Django models of the adapter's tests: the application drill's tables (imported once
Django is set up)."""

from __future__ import annotations

from django.db import models

from idnode.contrib.django import HiLoIdField, HiLoNumberField, IdentityField, KeyManager, NumericIdField


class Row(models.Model):
    lang = models.TextField(default="python")
    worker = models.IntegerField(default=0)
    seq = models.BigIntegerField(default=0)
    objects = KeyManager()

    class Meta:
        abstract = True
        app_label = "shop"


class Order(Row):
    id = HiLoIdField("orders", primary_key=True)

    class Meta:
        app_label = "shop"
        db_table = "orders"


class Invoice(Row):
    id = IdentityField("invoices", primary_key=True, claim=True)

    class Meta:
        app_label = "shop"
        db_table = "invoices"


class Event(Row):
    id = NumericIdField(primary_key=True)

    class Meta:
        app_label = "shop"
        db_table = "events"


class Counter(Row):
    id = HiLoNumberField("counters", primary_key=True)

    class Meta:
        app_label = "shop"
        db_table = "counters"


class Serial(Row):
    id = models.BigAutoField(primary_key=True)

    class Meta:
        app_label = "shop"
        db_table = "serials"


MODELS = (Order, Invoice, Event, Counter, Serial)
