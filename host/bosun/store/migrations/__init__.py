"""The store's alembic migrations, run by `Store.open` (no alembic.ini needed).

A new revision: copy the newest file in versions/, give it the next number as `revision`
and the previous one as `down_revision`, write `upgrade()` (keep the tables append-only),
update bosun/store/models.py to match, and add a test that opens a database of the older
revision.
"""
