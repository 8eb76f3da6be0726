package org.subgraphexport.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;

/**
 * Horizontal bar charts drawn with Java2D (headless) into a PNG: one row per label, one panel per measure (e.g. time
 * and bytes, like the founding slides), each panel scaled to its own maximum, every bar labelled with its value.
 */
final class BarChart {
    static final Color ALTERNATIVE = new Color(0xD9, 0x7B, 0x29);
    static final Color PROJECT = new Color(0x2B, 0x6C, 0xB0);
    static final Color FLOOR = new Color(0x5A, 0x9E, 0x4B);

    /** One row: its label, colour, and one value (with its printed form) per panel. */
    record Bar(String label, Color color, double[] values, String[] valueLabels) {}

    /** A legend entry. */
    record Key(String label, Color color) {}

    private BarChart() {}

    static void write(Path png, String title, String subtitle, List<String> panels, List<Bar> bars, List<Key> legend)
            throws IOException {
        System.setProperty("java.awt.headless", "true");
        int labelWidth = 230;
        int panelWidth = 520;
        int gap = 110; // room for the value labels at the end of the longest bar
        int rowHeight = 26;
        int top = 92;
        int width = labelWidth + panels.size() * (panelWidth + gap) + 20;
        int height = top + bars.size() * rowHeight + 70;
        BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, width, height);
            g.setColor(Color.BLACK);
            g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 18));
            g.drawString(title, 16, 28);
            g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
            g.setColor(Color.DARK_GRAY);
            g.drawString(subtitle, 16, 48);

            Font rowFont = new Font(Font.SANS_SERIF, Font.PLAIN, 13);
            Font valueFont = new Font(Font.SANS_SERIF, Font.PLAIN, 12);
            for (int p = 0; p < panels.size(); p++) {
                int x0 = labelWidth + p * (panelWidth + gap);
                double max = 0;
                for (Bar b : bars) max = Math.max(max, b.values()[p]);
                g.setColor(Color.BLACK);
                g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 13));
                g.drawString(panels.get(p), x0, top - 14);
                g.setColor(Color.LIGHT_GRAY);
                g.setStroke(new BasicStroke(1f));
                g.drawLine(x0, top - 6, x0, top + bars.size() * rowHeight);
                for (int i = 0; i < bars.size(); i++) {
                    Bar b = bars.get(i);
                    int y = top + i * rowHeight;
                    double v = b.values()[p];
                    int w = max <= 0 || v <= 0 ? 0 : (int) Math.max(1, Math.round(v / max * panelWidth));
                    g.setColor(b.color());
                    g.fillRect(x0, y + 4, w, rowHeight - 8);
                    g.setColor(Color.BLACK);
                    g.setFont(valueFont);
                    g.drawString(b.valueLabels()[p], x0 + w + 6, y + rowHeight - 9);
                }
            }
            g.setFont(rowFont);
            FontMetrics fm = g.getFontMetrics();
            for (int i = 0; i < bars.size(); i++) {
                String label = bars.get(i).label();
                int y = top + i * rowHeight;
                g.setColor(Color.BLACK);
                g.drawString(label, labelWidth - 12 - fm.stringWidth(label), y + rowHeight - 9);
            }
            int x = 16;
            int y = top + bars.size() * rowHeight + 30;
            for (Key k : legend) {
                g.setColor(k.color());
                g.fillRect(x, y - 11, 14, 14);
                g.setColor(Color.BLACK);
                g.drawString(k.label(), x + 20, y);
                x += 20 + fm.stringWidth(k.label()) + 28;
            }
        } finally {
            g.dispose();
        }
        Files.createDirectories(png.toAbsolutePath().getParent());
        ImageIO.write(image, "png", png.toFile());
    }
}
