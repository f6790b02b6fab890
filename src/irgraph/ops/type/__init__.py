"""Ops of OpenVINO's 'type' spec category."""
