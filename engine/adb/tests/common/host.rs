//! A host that speaks the device protocol by hand over loopback, for the protocol and
//! hardening tests.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use phoneworld_adb::protocol::{command, Packet, PacketReader, VERSION};
use phoneworld_adb::ServerHandle;

/// A host speaking the device protocol by hand, checking every packet's checksum.
pub(crate) struct Host {
    pub(crate) stream: TcpStream,
    pub(crate) reader: PacketReader<TcpStream>,
}

impl Host {
    pub(crate) fn connect(server: &ServerHandle) -> Host {
        let stream = TcpStream::connect(server.local_addr()).unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        let mut reader = PacketReader::new(stream.try_clone().unwrap());
        reader.verify_checksum = true;
        Host { stream, reader }
    }

    /// Connected and past the handshake.
    pub(crate) fn online(server: &ServerHandle, maxdata: u32) -> Host {
        let mut host = Host::connect(server);
        assert_eq!(host.handshake(maxdata).command, command::CNXN);
        host
    }

    pub(crate) fn send(&mut self, p: Packet) {
        self.stream.write_all(&p.encode()).unwrap();
    }

    pub(crate) fn recv(&mut self) -> Packet {
        self.reader.read_packet().unwrap().expect("a packet")
    }

    /// The next packet of `command` (others are skipped).
    pub(crate) fn recv_command(&mut self, command: u32) -> Packet {
        loop {
            let p = self.recv();
            if p.command == command {
                return p;
            }
        }
    }

    /// Nothing arrives within a short while.
    pub(crate) fn quiet(&mut self) -> bool {
        self.stream.set_read_timeout(Some(Duration::from_millis(300))).unwrap();
        let mut byte = [0u8; 1];
        let quiet = matches!(self.stream.peek(&mut byte), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock || e.kind() == std::io::ErrorKind::TimedOut);
        self.stream.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        quiet
    }

    /// Sends CNXN and returns the server's answer.
    pub(crate) fn handshake(&mut self, maxdata: u32) -> Packet {
        self.send(Packet::new(command::CNXN, VERSION, maxdata, b"host::features=shell_v2,cmd".to_vec()));
        self.recv()
    }

    /// Runs a one-shot service on stream `remote` and returns all it sent, acknowledging each WRTE.
    pub(crate) fn request(&mut self, remote: u32, service: &str) -> Vec<u8> {
        self.send(Packet::new(command::OPEN, remote, 0, format!("{service}\0").into_bytes()));
        let okay = self.recv_command(command::OKAY);
        assert_eq!(okay.arg1, remote);
        let mut out = Vec::new();
        loop {
            let p = self.recv();
            if p.arg1 != remote {
                continue;
            }
            match p.command {
                command::WRTE => {
                    out.extend_from_slice(&p.payload);
                    self.send(Packet::new(command::OKAY, remote, okay.arg0, Vec::new()));
                }
                command::CLSE => return out,
                _ => {}
            }
        }
    }

    /// The server hung up without sending anything (a read timeout is not a hang-up).
    pub(crate) fn closed_by_server(&mut self) -> bool {
        let mut rest = Vec::new();
        match self.stream.read_to_end(&mut rest) {
            Ok(_) => rest.is_empty(),
            Err(e) => !matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) && rest.is_empty(),
        }
    }
}
