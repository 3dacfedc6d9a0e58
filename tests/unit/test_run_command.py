"""`bosun run`, `demo` and `tables` refuse bad arguments before they start anything."""

from __future__ import annotations

import socket

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
