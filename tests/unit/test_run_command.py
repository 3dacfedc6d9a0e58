"""`bosun run`, `demo` and `tables` refuse bad arguments before they start anything."""

from __future__ import annotations

import os
import socket
import stat

import pytest

from bosun.cli import main


@pytest.mark.parametrize(
    "args, complaint",
    [
        (["--port", "99999"], "--port: 99999 is not between 0 and 65535"),
        (["--port", "http"], "--port: 'http' is not a whole number"),
        (["--demo", "0"], "--demo: 0 is not between 1 and 20"),
        (["--demo", "100"], "--demo: 100 is not between 1 and 20"),
    ],
)
def test_run_refuses_bad_arguments_naming_them(capsys, args, complaint):
    with pytest.raises(SystemExit) as stopped:
        main(["run", *args])
    assert stopped.value.code == 2
    assert complaint in capsys.readouterr().err


@pytest.mark.parametrize("command", ["run", "demo"])
def test_a_broker_url_that_is_not_mqtt_is_refused_before_anything_starts(
    tmp_path, monkeypatch, capsys, command
):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as stopped:
        main([command, "--mqtt", "ftp://example"])
    assert stopped.value.code == 2
    assert "broker URL 'ftp://example' must look like mqtt://host:1883" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())  # nothing was started or written


def test_tables_says_when_no_service_answers(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    with socket.socket() as unused:  # a port nobody listens on
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    assert main(["tables", "--service", f"http://127.0.0.1:{port}"]) == 1
    said = capsys.readouterr().out
    assert "no tables" in said and f"no service answers at http://127.0.0.1:{port}" in said


def test_demo_refuses_a_firmware_harbour(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["demo", "--firmware", "--game", "montego-bay"]) == 2
    assert "--firmware runs Riff Raff ships" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())  # nothing was started or written


def test_the_operator_key_file_is_owner_only_new_or_old(tmp_path, monkeypatch):
    from bosun.commands.run import operator_key

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("BOSUN_OPERATOR_KEY", raising=False)
    before = os.umask(0o022)  # the usual shell's: careless files come out 0644
    try:
        key = operator_key()
        assert stat.S_IMODE((tmp_path / "bosun.key").stat().st_mode) == 0o600
        assert (tmp_path / "bosun.key").read_text() == key + "\n" and len(key) >= 16
        (tmp_path / "bosun.key").chmod(0o644)  # made by an older bosun
        assert operator_key() == key
        assert stat.S_IMODE((tmp_path / "bosun.key").stat().st_mode) == 0o600
    finally:
        os.umask(before)


def test_demo_on_a_damaged_store_says_so_in_one_line(tmp_path, capsys):
    damaged = tmp_path / "old.db"
    damaged.write_bytes(b"not a store" * 100)
    assert main(["demo", "--db", f"sqlite:///{damaged}", "--timeout", "10"]) == 1
    said = capsys.readouterr().err.strip().splitlines()
    assert len(said) == 1 and "could not start" in said[0] and "not a database" in said[0], said
