"""TLS for the ships' listener: a CA bosun makes once, and the broker's certificate it signs.

The CA's certificate goes into each ship's config.json (`mqtt.ca`), so a ship talks only to
bosun's broker; its key stays next to `bosun.key`, owner-only. Keys are ECDSA P-256: an ESP32's
mbedTLS verifies and agrees on them far faster, and with less memory, than RSA. The broker's
certificate names every address ships may use (the LAN address, the --ships address,
127.0.0.1); when a new one is needed it is issued again under the same CA, so paired ships
keep trusting it.
"""

from __future__ import annotations

import datetime
import ipaddress
import socket
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from bosun.bus.broker import TlsFiles
from bosun.bus.credentials import write_private

CA_DAYS = 3650
BROKER_DAYS = 825  # what browsers and most TLS stacks accept for a server certificate
UNSPECIFIED = ("", None, "0.0.0.0", "::")  # "every address": no name for a certificate


def _name(common_name: str) -> x509.Name:
    return x509.Name(
        [
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "bosun"),
            x509.NameAttribute(NameOID.COMMON_NAME, common_name),
        ]
    )


def _key_pem(key: ec.EllipticCurvePrivateKey) -> str:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()


def _general_name(address: str) -> x509.GeneralName:
    try:
        return x509.IPAddress(ipaddress.ip_address(address))
    except ValueError:
        return x509.DNSName(address)


class ShipsTls:
    """The CA and broker certificate files in `folder` (made or renewed by `ensure`)."""

    def __init__(self, folder: Path, temporary: bool = False) -> None:
        self.folder = Path(folder)
        self.temporary = temporary  # made for one run: its owner removes it
        self.ca_file = self.folder / "bosun-ca.pem"
        self.ca_key_file = self.folder / "bosun-ca.key"
        self.cert_file = self.folder / "bosun-broker.pem"
        self.key_file = self.folder / "bosun-broker.key"

    @property
    def files(self) -> TlsFiles:
        return TlsFiles(self.ca_file, self.cert_file, self.key_file)

    def ca_pem(self) -> str:
        return self.ca_file.read_text()

    def ensure(self, addresses: list[str]) -> TlsFiles:
        """The CA (made once) and a broker certificate valid for `addresses` (issued again if
        one is missing, or it expires within 30 days). Blocking: key generation and files."""
        now = datetime.datetime.now(datetime.UTC)
        if not (self.ca_file.exists() and self.ca_key_file.exists()):
            self._make_ca(now)
        usable = [a for a in [*addresses, "127.0.0.1", "localhost"] if a not in UNSPECIFIED]
        wanted = {_general_name(a) for a in usable}
        if not self._broker_cert_covers(wanted, now):
            wanted |= self._names_now()  # keep serving the addresses ships already use
            self._make_broker_cert(sorted(wanted, key=str), now)
        return self.files

    def _names_now(self) -> set:
        try:
            certificate = x509.load_pem_x509_certificate(self.cert_file.read_bytes())
            names = certificate.extensions.get_extension_for_class(x509.SubjectAlternativeName)
        except (OSError, ValueError, x509.ExtensionNotFound):
            return set()
        return set(names.value)

    def _make_ca(self, now: datetime.datetime) -> None:
        key = ec.generate_private_key(ec.SECP256R1())
        name = _name(f"bosun CA ({socket.gethostname()[:40]})")
        certificate = (
            x509.CertificateBuilder()
            .subject_name(name)
            .issuer_name(name)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=CA_DAYS))
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(
                x509.KeyUsage(
                    digital_signature=False,
                    content_commitment=False,
                    key_encipherment=False,
                    data_encipherment=False,
                    key_agreement=False,
                    key_cert_sign=True,
                    crl_sign=True,
                    encipher_only=False,
                    decipher_only=False,
                ),
                critical=True,
            )
            .sign(key, hashes.SHA256())
        )
        self.folder.mkdir(parents=True, exist_ok=True)
        write_private(self.ca_key_file, _key_pem(key))
        write_private(self.ca_file, certificate.public_bytes(serialization.Encoding.PEM).decode())
        self.ca_file.chmod(0o644)  # the CA's certificate is public: ships carry it
        for stale in (self.cert_file, self.key_file):
            stale.unlink(missing_ok=True)  # signed by a CA that is gone

    def _broker_cert_covers(self, wanted: set, now: datetime.datetime) -> bool:
        if not (self.cert_file.exists() and self.key_file.exists()):
            return False
        try:
            certificate = x509.load_pem_x509_certificate(self.cert_file.read_bytes())
            names = certificate.extensions.get_extension_for_class(x509.SubjectAlternativeName)
        except (ValueError, x509.ExtensionNotFound):
            return False
        fresh = certificate.not_valid_after_utc - now > datetime.timedelta(days=30)
        return fresh and wanted <= set(names.value)

    def _make_broker_cert(self, names: list, now: datetime.datetime) -> None:
        ca_key = serialization.load_pem_private_key(self.ca_key_file.read_bytes(), None)
        ca = x509.load_pem_x509_certificate(self.ca_file.read_bytes())
        key = ec.generate_private_key(ec.SECP256R1())
        certificate = (
            x509.CertificateBuilder()
            .subject_name(_name("bosun broker"))
            .issuer_name(ca.subject)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=BROKER_DAYS))
            .add_extension(x509.SubjectAlternativeName(names), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(
                x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False
            )
            .sign(ca_key, hashes.SHA256())
        )
        write_private(self.key_file, _key_pem(key))
        write_private(self.cert_file, certificate.public_bytes(serialization.Encoding.PEM).decode())
