package io.junction.bench;

import io.junction.api.Field;
import io.junction.api.FieldRef;
import io.junction.api.FieldType;
import io.junction.api.Row;
import io.junction.api.RowCodec;
import io.junction.api.RowMapper;
import io.junction.api.RowView;
import io.junction.api.RowWriter;
import io.junction.api.Schema;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

/**
 * What the flyweight path saves over the typed path, per row, on the caller's side of the engine: the
 * work a producer does to turn one event into the binary row it publishes ({@code Publisher.publish(Side,
 * ChangeKind, Row, ...)} encodes with a {@link RowCodec}, as {@code encode*} here), and the work a result
 * handler does to read one result row ({@code RowResultHandler} decodes with a {@link RowCodec}, as
 * {@code decode*}). The engine's own cost (rings, operator, state) is the same for both paths and is
 * measured by {@link RuntimeBenchmark}; run with {@code -prof gc} to see the bytes allocated per row
 * (0 for the flyweight methods).
 * <p>
 * The row is the README's typed example's order: {@code order_id} (long), {@code method} (string),
 * {@code amount} (double). One operation = one row.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xmx1g"})
public class TypedPathBenchmark
{
    /** The record of {@code encodeRecord} and {@code decodeRecord}: canonical constructor = schema order. */
    public record Order(long order_id, String method, double amount)
    {
    }

    private static final Schema SCHEMA = Schema.of(
        Field.longField("order_id").required(), Field.string("method"), Field.doubleField("amount"));
    private static final String[] METHODS = {"card", "cash", "wire", "voucher"};

    private final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(256));
    private final RowWriter writer = new RowWriter();
    private final RowView view = new RowView();
    private final RowCodec codec = new RowCodec(SCHEMA);
    private final RowMapper<Order> mapper = RowMapper.of(Order.class, SCHEMA);
    private final FieldRef orderId = SCHEMA.ref("order_id", FieldType.LONG);
    private final FieldRef method = SCHEMA.ref("method", FieldType.STRING);
    private final FieldRef amount = SCHEMA.ref("amount", FieldType.DOUBLE);
    private long n;

    @Setup(Level.Trial)
    public void setUp()
    {
        final int length = writer.wrap(buffer, 0, buffer.capacity(), SCHEMA.size())
            .putLong(orderId, 42).putAscii(method, "card").putDouble(amount, 9.5).finish();
        view.wrap(buffer, 0, length);
    }

    /** The flyweight path: the fields written into a reused buffer (no allocation). */
    @Benchmark
    public int encodeFlyweight()
    {
        final long i = n++;
        return writer.wrap(buffer, 0, buffer.capacity(), SCHEMA.size())
            .putLong(orderId, i).putAscii(method, METHODS[(int)(i & 3)]).putDouble(amount, 0.5 + (i & 1023)).finish();
    }

    /** The typed path: a {@link Row} built per event, then encoded as {@code publish(..., Row, ...)} does. */
    @Benchmark
    public int encodeRow()
    {
        final long i = n++;
        final Row row = Row.of("order_id", i, "method", METHODS[(int)(i & 3)], "amount", 0.5 + (i & 1023));
        return codec.encode(row, buffer, 0, buffer.capacity());
    }

    /** The typed path with a record: {@link RowMapper#toRow} per event, then encoded. */
    @Benchmark
    public int encodeRecord()
    {
        final long i = n++;
        return codec.encode(mapper.toRow(new Order(i, METHODS[(int)(i & 3)], 0.5 + (i & 1023))), buffer, 0, buffer.capacity());
    }

    /** The flyweight path: a result row read through the view by resolved references (no allocation). */
    @Benchmark
    public double decodeFlyweight()
    {
        return view.getLong(orderId) + view.stringLength(method) + view.getNumberAsDouble(amount);
    }

    /** The typed path: the row decoded into a {@link Row}, as {@code RowResultHandler} hands it over. */
    @Benchmark
    public double decodeRow()
    {
        final Row row = codec.decode(view);
        return row.getLong("order_id") + row.getString("method").length() + row.getDouble("amount");
    }

    /** The typed path with a record: {@link RowMapper#map(RowView)}. */
    @Benchmark
    public double decodeRecord()
    {
        final Order order = mapper.map(view);
        return order.order_id() + order.method().length() + order.amount();
    }
}
