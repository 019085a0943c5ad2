fn main() {
    println!("Packet {}", std::mem::size_of::<rexmit_net::Packet>());
    println!("IpPacket {}", std::mem::size_of::<rexmit_wire::IpPacket>());
    println!(
        "TcpSegment {}",
        std::mem::size_of::<rexmit_wire::TcpSegment>()
    );
    println!(
        "TcpOptions {}",
        std::mem::size_of::<rexmit_wire::TcpOptions>()
    );
    println!(
        "SctpPacket {}",
        std::mem::size_of::<rexmit_wire::SctpPacket>()
    );
    println!("Payload {}", std::mem::size_of::<rexmit_wire::Payload>());
    println!("Chunk {}", std::mem::size_of::<rexmit_wire::Chunk>());
    println!(
        "DataChunk {}",
        std::mem::size_of::<rexmit_wire::DataChunk>()
    );
}
