"""Adapters that put idnode's IDs where applications write them: the primary keys of ORM
models. :mod:`idnode.contrib.sqlalchemy` and :mod:`idnode.contrib.django` share
:class:`idnode.contrib.keys.Keys`, which says where a table's keys come from."""
