//! The device protocol byte by byte: the packet codec and its errors, sync structures, and a
//! scripted host talking to the server over loopback (handshake, flow control, CLSE echo,
//! refusals, malformed and oversized packets, path tricks, AUTH).

mod common;

use common::host::Host;

use std::io::{Read, Write};

use phoneworld_adb::protocol::{
    auth_type, checksum, command, decode_header, Banner, Packet, PacketReader, ProtocolError, MAX_PAYLOAD, VERSION,
};
use phoneworld_adb::sync::{stat_v1, stat_v2, SyncService};
use phoneworld_adb::{AdbPublicKey, AdbServer, AuthPolicy, ServerHandle, ServerOptions, SharedPhone};
use phoneworld_data::Rng;

#[test]
fn header_golden_bytes() {
    let p = Packet::new(command::OKAY, 1, 2, b"ab".to_vec());
    let bytes = p.encode();
    assert_eq!(&bytes[..4], b"OKAY");
    assert_eq!(u32::from_le_bytes(bytes[12..16].try_into().unwrap()), 2, "data_length");
    assert_eq!(u32::from_le_bytes(bytes[16..20].try_into().unwrap()), 97 + 98, "data_check is the byte sum");
    assert_eq!(u32::from_le_bytes(bytes[20..24].try_into().unwrap()), command::OKAY ^ 0xffff_ffff);
    let mut reader = PacketReader::new(&bytes[..]);
    reader.verify_checksum = true;
    assert_eq!(reader.read_packet().unwrap(), Some(p));
    assert_eq!(reader.read_packet().unwrap(), None);
    assert_eq!(checksum(&[255; 3]), 765);
}

#[test]
fn bad_packets_name_the_offset_and_field() {
    let good = Packet::new(command::WRTE, 1, 2, b"x".to_vec()).encode();
    let mut stream = good.clone();
    let mut bad_magic = Packet::new(command::OKAY, 0, 0, Vec::new()).encode();
    bad_magic[20] ^= 1;
    stream.extend_from_slice(&bad_magic);
    let mut reader = PacketReader::new(&stream[..]);
    reader.read_packet().unwrap();
    let err = reader.read_packet().unwrap_err();
    assert!(matches!(err, ProtocolError::BadMagic { offset: 45, .. }), "{err}");
    assert!(err.to_string().starts_with("byte 45: field `magic`"), "{err}");

    let mut huge = Packet::new(command::WRTE, 1, 2, Vec::new()).encode();
    huge[12..16].copy_from_slice(&(MAX_PAYLOAD + 1).to_le_bytes());
    let err = PacketReader::new(&huge[..]).read_packet().unwrap_err();
    assert_eq!(err, ProtocolError::PayloadTooLarge { offset: 12, length: MAX_PAYLOAD + 1, max: MAX_PAYLOAD });

    let mut unknown = [0u8; 24];
    unknown[..4].copy_from_slice(b"ABCD");
    let cmd = u32::from_le_bytes(*b"ABCD");
    unknown[20..].copy_from_slice(&(cmd ^ 0xffff_ffff).to_le_bytes());
    assert!(matches!(decode_header(&unknown, 0, MAX_PAYLOAD), Err(ProtocolError::UnknownCommand { .. })));

    let longer = Packet::new(command::WRTE, 1, 2, b"0123456789".to_vec()).encode();
    let err = PacketReader::new(&longer[..30]).read_packet().unwrap_err();
    assert_eq!(err, ProtocolError::Truncated { offset: 0, have: 30, need: 34 });
    let err = PacketReader::new(&longer[..10]).read_packet().unwrap_err();
    assert_eq!(err, ProtocolError::Truncated { offset: 0, have: 10, need: 24 });

    let mut bad_sum = good.clone();
    bad_sum[16] ^= 1;
    let mut reader = PacketReader::new(&bad_sum[..]);
    reader.verify_checksum = true;
    assert!(matches!(reader.read_packet(), Err(ProtocolError::BadChecksum { offset: 16, .. })));
}

#[test]
fn banners_parse_and_print() {
    // The CNXN payload adb 29 sends.
    let host = Banner::parse(
        b"host::features=remount_shell,abb_exec,abb,apex,fixed_push_mkdir,ls_v2,stat_v2,fixed_push_symlink_timestamp,cmd,shell_v2",
    );
    assert_eq!(host.kind, "host");
    assert!(host.has_feature("shell_v2") && host.has_feature("abb_exec"));
    let ours = String::from_utf8(ServerOptions::default().banner().encode()).unwrap();
    assert_eq!(ours, "device::ro.product.name=phoneworld;ro.product.model=PhoneWorld;ro.product.device=phoneworld;features=shell_v2,cmd,stat_v2,ls_v2,fixed_push_mkdir");
}

#[test]
fn sync_structures_have_their_sizes() {
    assert_eq!(stat_v1(None).len(), 16);
    assert_eq!(stat_v2(b"STA2", Err(2)).len(), 72);
    let phone = SharedPhone::from_session(common::session(0));
    let mut out = Vec::new();
    let mut sync = SyncService::new();
    sync.input(&request(b"LIST", "/sdcard"), &phone, &mut out);
    // ., .., DCIM, Documents, Download, Pictures: 20-byte DENTs plus names, then a 20-byte DONE.
    let names = [".", "..", "DCIM", "Documents", "Download", "Pictures"];
    assert_eq!(out.len(), names.iter().map(|n| 20 + n.len()).sum::<usize>() + 20);
    out.clear();
    sync.input(&request(b"LIS2", "/sdcard"), &phone, &mut out);
    assert_eq!(out.len(), names.iter().map(|n| 76 + n.len()).sum::<usize>() + 76);
}

fn request(tag: &[u8; 4], arg: &str) -> Vec<u8> {
    let mut out = tag.to_vec();
    out.extend_from_slice(&(arg.len() as u32).to_le_bytes());
    out.extend_from_slice(arg.as_bytes());
    out
}

fn data(bytes: &[u8]) -> Vec<u8> {
    let mut out = b"DATA".to_vec();
    out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
    out.extend_from_slice(bytes);
    out
}

#[test]
fn sync_streams_cut_anywhere_give_the_same_result() {
    let content: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
    let mut stream = request(b"SEND", "/sdcard/Download/big.bin,33188");
    for chunk in content.chunks(65536) {
        stream.extend(data(chunk));
    }
    stream.extend_from_slice(b"DONE\x10\x00\x00\x00");
    stream.extend(request(b"STAT", "/sdcard/Download/big.bin"));
    stream.extend(request(b"RECV", "/sdcard/Download/big.bin"));
    stream.extend(request(b"QUIT", ""));
    let mut reference: Option<Vec<u8>> = None;
    let mut rng = Rng::new(7);
    for _ in 0..12 {
        let phone = SharedPhone::from_session(common::session(0));
        let mut sync = SyncService::new();
        let mut out = Vec::new();
        let mut at = 0;
        while at < stream.len() {
            let n = (1 + rng.below(70_000)).min(stream.len() - at);
            sync.input(&stream[at..at + n], &phone, &mut out);
            at += n;
        }
        assert!(sync.finished());
        assert_eq!(phone.lock().files().read("/sdcard/Download/big.bin").unwrap().as_slice(), content.as_slice());
        match &reference {
            None => reference = Some(out),
            Some(r) => assert_eq!(&out, r),
        }
    }
    let out = reference.unwrap();
    assert_eq!(&out[..8], b"OKAY\0\0\0\0");
    assert_eq!(&out[8..12], b"STAT");
}

#[test]
fn sync_refuses_path_tricks() {
    let phone = SharedPhone::from_session(common::session(0));
    let host_file = std::env::temp_dir().join(format!("phoneworld-escape-{}", std::process::id()));
    for path in [format!("/sdcard/../..{}", host_file.display()), "../../etc/passwd".to_owned()] {
        let mut out = Vec::new();
        let mut sync = SyncService::new();
        let mut send = request(b"SEND", &format!("{path},33188"));
        send.extend(data(b"pwned"));
        send.extend_from_slice(b"DONE\0\0\0\0");
        sync.input(&send, &phone, &mut out);
        assert_eq!(&out[..4], b"FAIL", "{path}");
        assert!(String::from_utf8_lossy(&out).contains("leaves the device's root"), "{}", String::from_utf8_lossy(&out));
        let mut out = Vec::new();
        SyncService::new().input(&request(b"RECV", &path), &phone, &mut out);
        assert_eq!(&out[..4], b"FAIL");
    }
    assert!(!host_file.exists(), "nothing reached the host's files");
    let mut out = Vec::new();
    SyncService::new().input(&request(b"RECV", "/etc/passwd"), &phone, &mut out);
    assert_eq!(&out[..4], b"FAIL", "host paths do not exist on the device");
    assert!(String::from_utf8_lossy(&out).ends_with("open failed: No such file or directory"));
    let mut out = Vec::new();
    SyncService::new().input(&request(b"STAT", &"x".repeat(2000)), &phone, &mut out);
    assert!(String::from_utf8_lossy(&out).starts_with("FAIL") && String::from_utf8_lossy(&out).contains("path too long"));
}

fn serve(options: ServerOptions) -> ServerHandle {
    AdbServer::bind("127.0.0.1:0", SharedPhone::from_session(common::session(0)), options).unwrap()
}

#[test]
fn handshake_streams_and_flow_control() {
    let server = serve(ServerOptions::default());
    let mut host = Host::connect(&server);
    let cnxn = host.handshake(4096);
    assert_eq!((cnxn.command, cnxn.arg0, cnxn.arg1), (command::CNXN, VERSION, 4096), "maxdata is the host's when smaller");
    assert!(String::from_utf8_lossy(&cnxn.payload).starts_with("device::ro.product.name=phoneworld;"));

    // Unknown service: CLSE(0, L).
    host.send(Packet::new(command::OPEN, 7, 0, b"jdwp:1234\0".to_vec()));
    let refused = host.recv();
    assert_eq!((refused.command, refused.arg0, refused.arg1), (command::CLSE, 0, 7));

    // A 1080x2400 framebuffer is ~10 MB: sent 4096 bytes at a time, one WRTE per OKAY.
    host.send(Packet::new(command::OPEN, 9, 0, b"framebuffer:\0".to_vec()));
    let okay = host.recv();
    assert_eq!((okay.command, okay.arg1), (command::OKAY, 9));
    let local = okay.arg0;
    assert_ne!(local, 0);
    let first = host.recv();
    assert_eq!((first.command, first.arg0, first.arg1, first.payload.len()), (command::WRTE, local, 9, 4096));
    assert!(host.quiet(), "no second WRTE before the OKAY");
    let mut received = first.payload;
    loop {
        host.send(Packet::new(command::OKAY, 9, local, Vec::new()));
        let p = host.recv();
        if p.command == command::CLSE {
            break;
        }
        assert_eq!(p.command, command::WRTE);
        assert!(p.payload.len() <= 4096);
        received.extend_from_slice(&p.payload);
        if received.len() > 200_000 {
            // Closing a live stream is echoed, and the stream is gone.
            host.send(Packet::new(command::CLSE, 9, local, Vec::new()));
            let echo = host.recv();
            assert_eq!((echo.command, echo.arg0, echo.arg1), (command::CLSE, local, 9));
            break;
        }
    }
    assert_eq!(&received[..8], [2u32.to_le_bytes(), 32u32.to_le_bytes()].concat());
    // Packets for a dead stream are ignored (no reply at all).
    host.send(Packet::new(command::CLSE, 9, local, Vec::new()));
    host.send(Packet::new(command::WRTE, 9, local, b"late".to_vec()));
    assert!(host.quiet());

    // A shell service with an OPEN payload lacking the trailing NUL works too.
    host.send(Packet::new(command::OPEN, 11, 0, b"shell,v2,raw:echo hi; exit 5".to_vec()));
    let okay = host.recv();
    let w = host.recv();
    assert_eq!(w.payload, [&[1u8, 3, 0, 0, 0][..], b"hi\n", &[3, 1, 0, 0, 0, 5]].concat(), "stdout packet then exit packet");
    host.send(Packet::new(command::OKAY, 11, okay.arg0, Vec::new()));
    assert_eq!(host.recv().command, command::CLSE);
    drop(host);
    assert!(server.errors().is_empty(), "{:?}", server.errors());
}

#[test]
fn bad_bytes_end_only_their_connection() {
    let server = serve(ServerOptions::default());
    let mut bystander = Host::connect(&server);
    bystander.handshake(MAX_PAYLOAD);
    for garbage in [b"GET / HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(), vec![0xff; 24], {
        let mut huge = Packet::new(command::WRTE, 1, 1, Vec::new()).encode();
        huge[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
        huge
    }] {
        let mut bad = Host::connect(&server);
        bad.stream.write_all(&garbage).unwrap();
        let mut rest = Vec::new();
        let _ = bad.stream.read_to_end(&mut rest);
        assert!(rest.is_empty(), "the server hung up without answering");
    }
    let errors = server.errors();
    assert_eq!(errors.len(), 3, "{errors:?}");
    assert!(errors[2].contains("field `data_length` is 4294967295, above the limit"), "{}", errors[2]);
    // The other connection and the server are fine.
    bystander.send(Packet::new(command::OPEN, 3, 0, b"shell:echo still here\0".to_vec()));
    let okay = bystander.recv();
    assert_eq!(okay.command, command::OKAY);
    assert_eq!(bystander.recv().payload, b"still here\n");
    let mut fresh = Host::connect(&server);
    assert_eq!(fresh.handshake(MAX_PAYLOAD).command, command::CNXN);
}

#[test]
fn auth_accepts_known_keys_only() {
    use rand_chacha::rand_core::SeedableRng;
    use rsa::{Pkcs1v15Sign, RsaPrivateKey, RsaPublicKey};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    let key = RsaPrivateKey::new(&mut rng, 2048).unwrap();
    let other = RsaPrivateKey::new(&mut rng, 2048).unwrap();
    let public = AdbPublicKey::from_rsa(RsaPublicKey::from(&key), "test@host").unwrap();
    // adb's own text format round-trips.
    let text = public.to_adb_format();
    assert_eq!(AdbPublicKey::parse(&text).unwrap(), public);
    assert!(text.ends_with(" test@host"));
    assert!(AdbPublicKey::parse("bm90IGEga2V5 x@y").is_err());

    let server = serve(ServerOptions { auth: AuthPolicy::Keys(vec![public]), ..ServerOptions::default() });
    let sign = |k: &RsaPrivateKey, token: &[u8]| k.sign(Pkcs1v15Sign::new::<sha1::Sha1>(), token).unwrap();
    let mut host = Host::connect(&server);
    let challenge = host.handshake(MAX_PAYLOAD);
    assert_eq!((challenge.command, challenge.arg0, challenge.payload.len()), (command::AUTH, auth_type::TOKEN, 20));
    // The wrong key gets a new token; offering an unknown public key gets nothing.
    host.send(Packet::new(command::AUTH, auth_type::SIGNATURE, 0, sign(&other, &challenge.payload)));
    let again = host.recv();
    assert_eq!(again.arg0, auth_type::TOKEN);
    assert_ne!(again.payload, challenge.payload);
    let other_public = AdbPublicKey::from_rsa(RsaPublicKey::from(&other), "").unwrap().to_adb_format();
    host.send(Packet::new(command::AUTH, auth_type::RSA_PUBLIC_KEY, 0, format!("{other_public}\0").into_bytes()));
    assert!(host.quiet(), "an unknown key stays unauthorized");
    host.send(Packet::new(command::OPEN, 1, 0, b"shell:echo no\0".to_vec()));
    assert!(host.quiet(), "nothing is served before authentication");
    // The right key signs the current token.
    host.send(Packet::new(command::AUTH, auth_type::SIGNATURE, 0, sign(&key, &again.payload)));
    assert_eq!(host.recv().command, command::CNXN);
}
