import NIOCore

/// The first handler of a connection's pipeline: what is written through it goes to the socket
/// as bytes, past the HTTP handlers (for refusals that precede or break off a request); and it
/// sees the client's end of input before NIO's pipelining handler, which holds that event back
/// until the answer under way is complete.
final class RawOutlet: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    private(set) var context: ChannelHandlerContext?
    /// Called (on the channel's event loop) when the client's input ends.
    var onInputClosed: (() -> Void)?
    /// Whether the client has sent any byte since this was last cleared (the header timer asks:
    /// an idle keep-alive connection is closed quietly, a request that stalled halfway gets 408).
    var receivedBytes = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        receivedBytes = true
        context.fireChannelRead(data)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case ChannelEvent.inputClosed = event { onInputClosed?() }
        context.fireUserInboundEventTriggered(event)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        onInputClosed = nil
    }
}
